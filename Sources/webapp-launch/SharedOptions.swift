import ArgumentParser
import Foundation
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
        let loaded = try load()
        do {
            try DevelopmentKeyPolicy.check(loaded, bindHost: bindHost, publicURLs: publicURLs)
        } catch {
            guard keyring == nil else { throw CommandFailure.configuration(error.description) }
            throw CommandFailure.configuration("--keyring is required here: \(error.description)")
        }
        return loaded
    }

    func load() throws -> Keyring {
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

/// `--registry FILE`, defaulting to the embedded sample registry.
struct RegistryOption: ParsableArguments {
    @Option(name: .long, help: "Registry of web apps (default: the embedded sample registry, as in keys/registry.sample.json).")
    var registry: String?

    func load() throws -> Registry {
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
