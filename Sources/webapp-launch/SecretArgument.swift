import Foundation
import WebAppLaunch
import WebAppRegistry

/// The value of an option that carries a secret (an access token, a database password).
///
/// The command line of a running program is readable by every local user (`ps`,
/// `/proc/PID/cmdline`) and often lands in shell history, so every secret-bearing option also
/// takes a reference that keeps the secret off it:
///
/// | value | read from |
/// |---|---|
/// | `env:NAME` | the environment variable `NAME` |
/// | `file:PATH` | the file at `PATH` (one trailing line break removed); refused when group or others may read it, as ssh refuses a loose private key |
/// | `-` | standard input (one trailing line break removed) |
/// | anything else | the value itself, with a warning on stderr that never repeats it |
///
/// A command resolves its secrets first, so a reference that cannot be read fails before
/// anything else, and calls ``warnIfInline()`` once its configuration is accepted, so a
/// configuration error stays one line on stderr.
struct SecretArgument {
    /// The secret.
    let value: String
    /// The option's name, e.g. `--access-token`.
    let option: String
    /// Whether the secret was given on the command line itself.
    let isInline: Bool

    /// Resolves an option's value to the secret it stands for.
    /// - Parameters:
    ///   - text: The option's value as given.
    ///   - option: The option's name for messages, e.g. `--access-token`.
    ///   - isSecretInline: Whether an inline value holds a secret worth a warning (the whole
    ///     value by default; `--replay` only when its URL carries a password).
    /// - Throws: ``CommandFailure/configuration(_:)`` when a reference cannot be read; the
    ///   message names the variable or file, never a secret.
    init(_ text: String, option: String, isSecretInline: (String) -> Bool = { _ in true }) throws {
        self.option = option
        let isReference = text.hasPrefix("env:") || text.hasPrefix("file:") || text == "-"
        self.value = try Self.resolve(text, option: option)
        self.isInline = !isReference && isSecretInline(text)
    }

    /// Prints, when the secret was given inline, one line on stderr saying how to keep it
    /// off the command line. The secret itself is never printed.
    func warnIfInline() {
        guard isInline else { return }
        printError(
            "warning: \(option) on the command line is visible to other local users (ps, /proc); "
                + "pass env:NAME, file:PATH or - (standard input) instead"
        )
    }

    /// The largest secret read from a file or standard input, in bytes.
    static let maximumByteCount = 64 * 1024

    /// The secret a value stands for: a reference's target, or the value itself.
    private static func resolve(_ value: String, option: String) throws -> String {
        if value.hasPrefix("env:") {
            let name = String(value.dropFirst("env:".count))
            guard !name.isEmpty, let secret = ProcessInfo.processInfo.environment[name], !secret.isEmpty else {
                throw CommandFailure.configuration("\(option): the environment variable `\(name)` is not set or empty")
            }
            return secret
        }
        if value.hasPrefix("file:") {
            let path = String(value.dropFirst("file:".count))
            guard !path.isEmpty, let handle = FileHandle(forReadingAtPath: path) else {
                throw CommandFailure.configuration("\(option): cannot read the file `\(path)`")
            }
            defer { try? handle.close() }
            // The mode of the bytes read, through the same descriptor.
            if let mode = DescriptorMode.of(handle.fileDescriptor), DescriptorMode.isRegularFile(mode), mode & 0o077 != 0 {
                throw CommandFailure.configuration("\(option): the file `\(path)` is readable by group or others; run chmod 600")
            }
            return try text(of: handle.readData(ofLength: maximumByteCount + 1), option: option, source: "the file `\(path)`")
        }
        if value == "-" {
            let data = FileHandle.standardInput.readData(ofLength: maximumByteCount + 1)
            return try text(of: data, option: option, source: "standard input")
        }
        return value
    }

    /// Whether a database URL carries a password: `scheme://user:password@host/…` or a
    /// `password=` query parameter (libpq's form).
    /// - Parameter url: The URL as given.
    /// - Returns: `true` when a password is in the text.
    static func urlCarriesPassword(_ url: String) -> Bool {
        // By byte: a delimiter followed by a combining mark is one Character to Swift but
        // still a delimiter to the URL parser, so a search by Character would miss it.
        let bytes = Array(url.utf8)
        guard let schemeEnd = bytes.firstRange(of: Array("://".utf8)) else { return false }
        let rest = bytes[schemeEnd.upperBound...]
        let authority = rest[..<(rest.firstIndex { [UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains($0) } ?? rest.endIndex)]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")), authority[..<at].contains(UInt8(ascii: ":")) { return true }
        guard let query = bytes.firstIndex(of: UInt8(ascii: "?")) else { return false }
        return bytes[(query + 1)...].split(separator: UInt8(ascii: "&")).contains { parameter in
            String(decoding: parameter.prefix(9), as: UTF8.self).lowercased() == "password="
        }
    }

    /// The secret in bytes read from a file or standard input: UTF-8, non-empty, bounded,
    /// without one trailing line break.
    private static func text(of data: Data, option: String, source: String) throws -> String {
        guard data.count <= maximumByteCount, var text = String(data: data, encoding: .utf8) else {
            throw CommandFailure.configuration("\(option): \(source) is not UTF-8 text of at most \(maximumByteCount) bytes")
        }
        if text.hasSuffix("\r\n") {
            text.removeLast(1)  // "\r\n" is one Character
        } else if text.hasSuffix("\n") {
            text.removeLast()
        }
        guard !text.isEmpty else { throw CommandFailure.configuration("\(option): \(source) is empty") }
        return text
    }
}
