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
    public static let maximumLength = URLSyntax.maximumLength

    /// Parses and normalises a registered URL.
    ///
    /// - Parameter string: The URL as registered, e.g. `https://Example.org:443/app?tenant=a`.
    /// - Throws: ``RegistryError`` naming what is wrong; nothing lenient is ever guessed.
    public init(_ string: String) throws(RegistryError) {
        guard !string.isEmpty, string.utf8.count <= Self.maximumLength else {
            throw RegistryError(.invalidURL, "a registered URL must be 1 to \(Self.maximumLength) bytes")
        }
        guard URLSyntax.isPrintableASCII(string) else {
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
        let host: String
        let port: Int?
        do {
            (host, port) = try URLSyntax.parseAuthority(authority, scheme: scheme)
        } catch {
            throw RegistryError(.invalidURL, error.reason)
        }
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
        var text = "\(scheme)://\(host)"
        if let port { text += ":\(port)" }
        text += path
        if let query { text += "?\(query)" }
        description = text
    }

    /// The canonical text: the bytes a launch token carries as its audience. Built once, when
    /// the URL is parsed: every mint writes it into a token.
    public let description: String

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
        URLSyntax.isLoopback(host)
    }

    /// Whether an IP address as a socket reports it (`inet_ntop` text) is loopback:
    /// `127.x.y.z`, `::1`, or the IPv4-mapped `::ffff:127.x.y.z`.
    ///
    /// For addresses a socket actually bound or connected to, where the text is canonical;
    /// the same rule as ``isLoopback(_:)``, which judges hosts as written.
    /// - Parameter address: The address text.
    /// - Returns: `true` for loopback.
    public static func isLoopbackIPAddress(_ address: String) -> Bool {
        let lower = address.lowercased()
        if lower == "::1" { return true }
        let ipv4 = lower.hasPrefix("::ffff:") ? String(lower.dropFirst("::ffff:".count)) : lower
        return ipv4 != "localhost" && URLSyntax.isLoopback(ipv4)
    }

    /// Whether the host of an absolute URL given as text (an issuer, an endpoint, a
    /// launcher's base URL) is loopback, judged on the parsed host by ``isLoopback(_:)``:
    /// `http://127.evil.example/` is a DNS name, not loopback.
    /// - Parameter url: The URL text, `scheme://authority/…`.
    /// - Returns: `true` when the authority parses and its host is loopback; `false` for
    ///   anything that does not parse, or that carries userinfo.
    public static func hasLoopbackHost(_ url: String) -> Bool {
        guard let (scheme, rest) = URLSyntax.splitScheme(url), rest.hasPrefix("//") else { return false }
        let afterSlashes = rest.dropFirst(2)
        let authority = afterSlashes[..<(afterSlashes.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterSlashes.endIndex)]
        guard !authority.contains("@"), let parsed = try? URLSyntax.parseAuthority(authority, scheme: scheme) else { return false }
        return URLSyntax.isLoopback(parsed.host)
    }

    /// The bytes a registered path may hold: RFC 3986 `pchar` and `/`, without `;` and `,`
    /// (the path is written into the session cookie's `Path` attribute and the `Location`
    /// header, where `;` would start another cookie attribute).
    private static let pathBytes: Set<UInt8> = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+=:@%/".utf8)

    private static func checkPath(_ path: String) throws(RegistryError) {
        guard path.hasPrefix("/") else {
            throw RegistryError(.invalidURL, "the path must start with `/`")
        }
        guard path.utf8.allSatisfy(pathBytes.contains) else {
            throw RegistryError(.invalidURL, "the path may hold only RFC 3986 path characters, and no `;` or `,`")
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
