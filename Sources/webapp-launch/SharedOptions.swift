import ArgumentParser
import AsyncHTTPClient
import Foundation
import WebAppLaunchLauncher
import WebAppLaunch
import WebAppLaunchServer
import WebAppRegistry

/// `--keyring FILE`, defaulting to the embedded development keyring.
struct KeyringOption: ParsableArguments {
    @Option(name: .long, help: "Keyring file (default: the embedded development keys, as in keys/dev.keyring.json).")
    var keyring: String?

    /// What the keyring is, for error lines: its path, or the embedded development keyring.
    var path: String { keyring ?? "(embedded development keyring)" }

    /// Loads the keyring and applies the one development-key policy (``DevelopmentKeyPolicy``)
    /// for what the command binds and serves or mints for. When the embedded development
    /// keyring is refused, the message says that `--keyring` is required.
    /// - Parameters:
    ///   - bindHost: The address the command binds, if any.
    ///   - publicURLs: The URLs it serves or mints for.
    /// - Returns: The keyring.
    /// - Throws: ``CommandFailure/configuration(_:)``.
    func load(bindHost: String?, publicURLs: [RegisteredURL]) throws -> Keyring {
        try Self.load(path: keyring, bindHost: bindHost, publicURLs: publicURLs)
    }

    func load() throws -> Keyring {
        try Self.load(path: keyring)
    }

    /// The same loading and policy as ``load(bindHost:publicURLs:)``, for a reload (SIGHUP):
    /// the file is read again, with every check of startup.
    func reloader(bindHost: String?, publicURLs: [RegisteredURL]) -> @Sendable () throws -> Keyring {
        let path = keyring
        return { try Self.load(path: path, bindHost: bindHost, publicURLs: publicURLs) }
    }

    /// ``reloader(bindHost:publicURLs:)`` for a command whose public URLs come from the
    /// registry read in the same reload (the launcher).
    func reloader(bindHost: String?) -> @Sendable ([RegisteredURL]) throws -> Keyring {
        let path = keyring
        return { publicURLs in try Self.load(path: path, bindHost: bindHost, publicURLs: publicURLs) }
    }

    private static func load(path keyring: String?, bindHost: String?, publicURLs: [RegisteredURL]) throws -> Keyring {
        let loaded = try load(path: keyring)
        do {
            try DevelopmentKeyPolicy.check(loaded, bindHost: bindHost, publicURLs: publicURLs)
        } catch {
            guard keyring == nil else { throw CommandFailure.configuration(error.description) }
            throw CommandFailure.configuration("--keyring is required here: \(error.description)")
        }
        return loaded
    }

    private static func load(path keyring: String?) throws -> Keyring {
        guard let path = keyring else {
            do {
                return try DevelopmentDefaults.keyring()
            } catch {
                throw CommandFailure.configuration("the embedded development keyring: \(error)")
            }
        }
        do {
            return try Keyring(contentsOfFile: path)
        } catch {
            throw CommandFailure.configuration("keyring \(path): \(error)")
        }
    }
}

/// `--registry FILE` or `--registry URL` (a CMS), defaulting to the embedded sample registry.
struct RegistryOption: ParsableArguments {
    @Option(name: .long, help: "Registry of web apps: a file, or an https URL (http only on loopback) fetched with ETag and re-fetched (default: the embedded sample registry).")
    var registry: String?

    @Option(name: .long, help: "With --registry URL: seconds between re-fetches (also on SIGHUP); 0: on SIGHUP only.")
    var registryRefresh: Int = 300

    func validate() throws {
        guard (0...86_400).contains(registryRefresh) else { throw ValidationError("--registry-refresh must be 0 to 86400") }
        if let url { guard RemoteRegistry.isAcceptable(url) else { throw ValidationError("--registry must be a file, or an https URL (http only on loopback)") } }
    }

    /// The registry's URL when `--registry` names one.
    var url: URL? {
        guard let registry, registry.hasPrefix("https://") || registry.hasPrefix("http://") else { return nil }
        return URL(string: registry)
    }

    /// Opens where the registry comes from; a URL gets an HTTP client of its own, so the
    /// caller must ``RegistrySource/shutdown()`` it.
    func source() throws -> RegistrySource {
        guard let url else { return RegistrySource(path: registry, remote: nil, client: nil, refresh: nil) }
        let client = IdentityProviderHTTPClient.make(connectTimeout: .seconds(5), readTimeout: .seconds(10))
        do {
            let remote = try RemoteRegistry(url: url, client: client)
            return RegistrySource(path: nil, remote: remote, client: client, refresh: registryRefresh > 0 ? .seconds(registryRefresh) : nil)
        } catch {
            try? client.syncShutdown()
            throw CommandFailure.configuration("--registry: \(error)")
        }
    }

    /// Runs `body` with the registry's source open and shuts its HTTP client down after, on
    /// every path (a client must be shut down before it is released).
    func withSource<T>(_ body: (RegistrySource) async throws -> T) async throws -> T {
        let source = try source()
        do {
            let result = try await body(source)
            await source.shutdown()
            return result
        } catch {
            await source.shutdown()
            throw error
        }
    }

    /// Reads a registry file (or the embedded sample); a URL is for `serve` and `launcher` only.
    func load() throws -> Registry {
        guard url == nil else { throw CommandFailure.configuration("--registry URL is for serve and launcher; give a file here") }
        return try RegistrySource.load(path: registry)
    }
}

/// Where `serve` and `launcher` read their registry: a file (or the embedded sample), or a
/// CMS (``RemoteRegistry``: the last good copy kept, re-fetched on an interval).
struct RegistrySource: Sendable {
    let path: String?
    let remote: RemoteRegistry?
    let client: HTTPClient?
    /// How often a remote registry is fetched again; `nil` for files (SIGHUP only).
    let refresh: Duration?

    /// Reads the registry: the file again, or a conditional fetch.
    func load() async throws -> Registry {
        guard let remote else { return try Self.load(path: path) }
        do {
            return try await remote.fetch()
        } catch {
            throw CommandFailure.configuration("registry \(remote.url.host ?? "?"): \(error)")
        }
    }

    /// Shuts the HTTP client down, if there is one.
    func shutdown() async {
        try? await client?.shutdown()
    }

    static func load(path registry: String?) throws -> Registry {
        guard let path = registry else {
            do {
                return try DevelopmentDefaults.registry()
            } catch {
                throw CommandFailure.configuration("the embedded sample registry: \(error)")
            }
        }
        do {
            return try Registry(contentsOfFile: path)
        } catch {
            throw CommandFailure.configuration("registry \(path): \(error)")
        }
    }
}

/// The longest launch URL (or token) the CLI reads, in bytes: far more than any launch URL
/// the default policy accepts (a 2048-byte registered URL and a 16384-byte token).
let maximumURLArgumentBytes = 64 * 1024

/// Reads a URL argument, or standard input when it is `-` (SPEC.md §15.1).
///
/// Standard input is read to its end but never more than ``maximumURLArgumentBytes`` plus
/// three bytes are held; exactly one trailing LF or CR LF (what `mint` and `echo` end with) is
/// removed and nothing else, so the text verified is the text given.
/// - Throws: ``LaunchError`` `too_large` for more than ``maximumURLArgumentBytes`` bytes
///   (argument or input), `malformed` for input that is not UTF-8.
func readURLArgument(_ argument: String) throws -> String {
    guard argument == "-" else {
        guard argument.utf8.count <= maximumURLArgumentBytes else {
            throw LaunchError(.tooLarge, "the URL exceeds \(maximumURLArgumentBytes) bytes")
        }
        return argument
    }
    var data = Data()
    // Bounded: at most the limit, a CR LF and one byte more (already too many) are kept.
    let keep = maximumURLArgumentBytes + 3
    while data.count < keep {
        let chunk = FileHandle.standardInput.readData(ofLength: keep - data.count)
        if chunk.isEmpty { break }
        data.append(chunk)
    }
    guard data.count < keep else {
        throw LaunchError(.tooLarge, "standard input exceeds \(maximumURLArgumentBytes) bytes")
    }
    if data.last == UInt8(ascii: "\n") {
        data.removeLast()
        if data.last == UInt8(ascii: "\r") { data.removeLast() }
    }
    guard data.count <= maximumURLArgumentBytes else {
        throw LaunchError(.tooLarge, "standard input exceeds \(maximumURLArgumentBytes) bytes")
    }
    guard let text = String(validating: data, as: UTF8.self) else {
        throw LaunchError(.malformed, "standard input is not UTF-8")
    }
    return text
}

/// Prints a line to standard error with ``TerminalText/escaped(_:)`` applied, so input it
/// echoes stays on one line and carries no terminal control sequence.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((TerminalText.escaped(line) + "\n").utf8))
}
