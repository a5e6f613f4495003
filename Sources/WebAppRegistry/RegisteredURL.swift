/// A web app's registered URL in its one canonical form: the launch token's audience.
///
/// Launch URLs are built from, and checked against, this form only. Parsing is strict on
/// purpose: the bugs of comparable schemes came from lenient URL handling (userinfo that
/// hides the real host, encoded dots, case or port variants of the same origin). So only
/// `http` and `https` are accepted, `http` only for loopback hosts, there is never userinfo
/// or a fragment, and the normalisation is exactly: lower-case scheme and host, the default
/// port dropped, an empty path written as `/`, the path and query kept byte for byte.
public struct RegisteredURL: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`, lower case.
    public let scheme: String
    /// The host in lower case: a DNS name, an IPv4 address, or an IPv6 address in brackets.
    public let host: String
    /// The port, or `nil` when it is the scheme's default.
    public let port: Int?
    /// The path, starting with `/`, exactly as registered.
    public let path: String
    /// The query string the app was registered with (without `?`), or `nil` when it has none.
    public let query: String?

    /// The longest registered URL accepted, in bytes; also bounds the token's audience field.
    public static let maximumLength = 2048

    /// Parses and normalises a registered URL.
    ///
    /// - Parameter string: The URL as registered, e.g. `https://Example.org:443/app?tenant=a`.
    /// - Throws: ``RegistryError`` naming what is wrong; nothing lenient is ever guessed.
    public init(_ string: String) throws(RegistryError) {
        guard !string.isEmpty, string.utf8.count <= Self.maximumLength else {
            throw RegistryError(.invalidURL, "a registered URL must be 1 to \(Self.maximumLength) bytes")
        }
        guard string.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw RegistryError(.invalidURL, "a registered URL must be printable ASCII without spaces")
        }
        guard let schemeEnd = string.firstRange(of: "://") else {
            throw RegistryError(.invalidURL, "a registered URL needs a scheme and `://`")
        }
        let scheme = string[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else {
            throw RegistryError(.invalidURL, "only http and https URLs can be registered")
        }
        guard !string.contains("#") else {
            throw RegistryError(.invalidURL, "a registered URL cannot carry a fragment")
        }
        let rest = string[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@") else {
            throw RegistryError(.invalidURL, "a registered URL cannot carry userinfo")
        }
        let (host, port) = try Self.parseAuthority(authority, scheme: scheme)
        let afterAuthority = rest[authorityEnd...]
        let queryStart = afterAuthority.firstIndex(of: "?")
        var path = String(afterAuthority[..<(queryStart ?? afterAuthority.endIndex)])
        if path.isEmpty { path = "/" }
        try Self.checkPath(path)
        var query: String?
        if let queryStart {
            let raw = afterAuthority[afterAuthority.index(after: queryStart)...]
            if !raw.isEmpty { query = String(raw) }
        }
        if let query {
            guard !query.contains("?") else {
                throw RegistryError(.invalidURL, "a registered URL's query cannot contain a second `?`")
            }
            for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
                let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
                guard !pair.isEmpty, !name.isEmpty else {
                    throw RegistryError(.invalidURL, "a registered URL's query has an empty parameter")
                }
                guard name != "launch" else {
                    throw RegistryError(.invalidURL, "a registered URL cannot carry its own `launch` parameter")
                }
            }
        }
        if scheme == "http" && !Self.isLoopback(host) {
            throw RegistryError(.invalidURL, "plain http is allowed only for loopback hosts")
        }
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.query = query
    }

    /// The canonical text: the bytes a launch token carries as its audience.
    public var description: String {
        var text = "\(scheme)://\(host)"
        if let port { text += ":\(port)" }
        text += path
        if let query { text += "?\(query)" }
        return text
    }

    /// Scheme, host and port, as browsers compare origins (`https://example.org:8443`).
    public var origin: String {
        var text = "\(scheme)://\(host)"
        if let port { text += ":\(port)" }
        return text
    }

    /// Whether the host is a loopback address (`127.0.0.0/8`, `[::1]` or `localhost`),
    /// where plain http and development keys are tolerated.
    public var isLoopback: Bool { Self.isLoopback(host) }

    /// Whether a host names this machine's loopback interface.
    /// - Parameter host: A lower-case host as ``RegisteredURL`` stores it.
    /// - Returns: `true` for `localhost`, `127.x.y.z` and `[::1]`/`::1`.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "[::1]" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in
            !octet.isEmpty && octet.count <= 3 && octet.allSatisfy(\.isASCIIDigit) && Int(octet)! <= 255
        }
    }

    private static func parseAuthority(_ authority: Substring, scheme: String) throws(RegistryError) -> (String, Int?) {
        var hostPart = authority
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw RegistryError(.invalidURL, "an IPv6 host needs a closing `]`")
            }
            hostPart = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw RegistryError(.invalidURL, "unexpected text after the IPv6 host") }
                portPart = after.dropFirst()
            }
            let inner = hostPart.dropFirst().dropLast()
            guard !inner.isEmpty, inner.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw RegistryError(.invalidURL, "the IPv6 host is not valid")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        let host = hostPart.lowercased()
        guard !host.isEmpty, host.utf8.count <= 253 else {
            throw RegistryError(.invalidURL, "a registered URL needs a host")
        }
        if !host.hasPrefix("[") {
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            for label in labels {
                guard !label.isEmpty, label.count <= 63,
                      label.allSatisfy({ $0.isASCIILetterOrDigit || $0 == "-" }),
                      !label.hasPrefix("-"), !label.hasSuffix("-")
                else {
                    throw RegistryError(.invalidURL, "the host `\(host)` is not a valid DNS name or IPv4 address")
                }
            }
        }
        var port: Int?
        if let portPart {
            guard !portPart.isEmpty, portPart.count <= 5, portPart.allSatisfy(\.isASCIIDigit),
                  let value = Int(portPart), (1...65535).contains(value)
            else {
                throw RegistryError(.invalidURL, "the port must be a number from 1 to 65535")
            }
            let defaultPort = scheme == "https" ? 443 : 80
            port = value == defaultPort ? nil : value
        }
        return (host, port)
    }

    private static func checkPath(_ path: String) throws(RegistryError) {
        guard path.hasPrefix("/") else {
            throw RegistryError(.invalidURL, "the path must start with `/`")
        }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            if segment == "." || segment == ".." {
                throw RegistryError(.invalidURL, "the path cannot contain `.` or `..` segments")
            }
        }
        let lower = path.lowercased()
        if lower.contains("%2e") || lower.contains("%2f") || lower.contains("%5c") || path.contains("\\") {
            throw RegistryError(.invalidURL, "the path cannot contain encoded dots, slashes or backslashes")
        }
        var index = path.utf8.startIndex
        let bytes = path.utf8
        while index != bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                guard first != bytes.endIndex, bytes.index(after: first) != bytes.endIndex,
                      bytes[first].isHexDigit, bytes[bytes.index(after: first)].isHexDigit
                else {
                    throw RegistryError(.invalidURL, "the path has a malformed percent escape")
                }
            }
            index = bytes.index(after: index)
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
    fileprivate var isASCIILetterOrDigit: Bool { isASCII && (isLetter || isNumber) }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
