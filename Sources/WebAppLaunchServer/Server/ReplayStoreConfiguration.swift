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
}
