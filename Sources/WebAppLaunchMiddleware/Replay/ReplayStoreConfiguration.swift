import Foundation
import WebAppRegistry

/// Which replay store the server uses, as named on the command line
/// (`memory`, `sqlite:PATH`, `postgres://…`).
public enum ReplayStoreConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// In process memory, bounded (the default).
    case memory(capacity: Int)
    /// An SQLite file that survives restarts.
    case sqlite(path: String)
    /// A PostgreSQL database shared by every instance.
    case postgres(url: String)

    /// Parses the command-line form.
    /// - Parameter text: `memory`, `sqlite:PATH` or a `postgres://` / `postgresql://` URL.
    public init?(_ text: String) {
        if text == "memory" {
            self = .memory(capacity: InMemoryReplayStore.defaultCapacity)
        } else if text.hasPrefix("sqlite:"), text.count > "sqlite:".count {
            self = .sqlite(path: String(text.dropFirst("sqlite:".count)))
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else {
            return nil
        }
    }

    /// Never the PostgreSQL password.
    public var description: String {
        switch self {
        case .memory(let capacity): "memory (capacity \(capacity))"
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres: "postgres (connection details redacted)"
        }
    }

    /// The store `webapp-launch serve` uses when none is named: a SQLite file, so a used launch
    /// stays used across restarts (an in-memory store forgets, and a launch used before a
    /// restart could be used again after it). The file lives in `$XDG_STATE_HOME/webapp-launch`
    /// (default `~/.local/state/webapp-launch`), a directory created with mode 0700.
    /// - Returns: `.sqlite` at that path.
    /// - Throws: ``ConfigurationError`` when the directory cannot be created.
    public static func defaultFile(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigurationError) -> ReplayStoreConfiguration {
        let base: String
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            base = state
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = home + "/.local/state"
        } else {
            throw ConfigurationError("no state directory for the replay store (set HOME or XDG_STATE_HOME, or pass --replay)")
        }
        let directory = base + "/webapp-launch"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ConfigurationError("cannot create the state directory \(directory) for the replay store")
        }
        return .sqlite(path: directory + "/replay.sqlite")
    }
}
