import WebAppRegistry

/// An `http` or `https` URL reduced to what origin checks need, parsed strictly.
///
/// Foundation's `URL` is lenient and differs between platforms (backslashes, userinfo,
/// numeric hosts), so the origin a decision depends on is computed here from the text with
/// the same rules as `RegisteredURL` (one `URLSyntax` for both): no userinfo, no backslash, DNS/IPv4/IPv6
/// hosts only, ports 1 to 65535 with the default dropped. Path, query and fragment are
/// not interpreted; they cannot change the origin.
struct WebAddress: Sendable, Hashable {
    /// `http` or `https`.
    let scheme: String
    /// The lower-case host.
    let host: String
    /// The port, or `nil` for the scheme's default.
    let port: Int?

    /// `scheme://host[:port]`, comparable with ``WebAppRegistry/RegisteredURL/origin``.
    var origin: String {
        var text = "\(scheme)://\(host)"
        if let port { text += ":\(port)" }
        return text
    }

    /// Parses the origin part of an `http` or `https` URL.
    /// - Parameter text: The whole URL.
    /// - Throws: ``URLSyntaxError`` for anything not strictly well formed, including other schemes.
    init(_ text: String) throws(URLSyntaxError) {
        guard !text.isEmpty, text.utf8.count <= URLSyntax.maximumLength else {
            throw URLSyntaxError("a URL must be 1 to \(URLSyntax.maximumLength) bytes")
        }
        guard URLSyntax.isPrintableASCII(text) else {
            throw URLSyntaxError("a URL must be printable ASCII without spaces or control characters")
        }
        guard !text.contains("\\") else {
            throw URLSyntaxError("a URL cannot contain a backslash")
        }
        guard let (scheme, rest) = URLSyntax.splitScheme(text), scheme == "https" || scheme == "http" else {
            throw URLSyntaxError("only http and https URLs have a web origin")
        }
        guard rest.hasPrefix("//") else {
            throw URLSyntaxError("a web URL needs `//` after its scheme")
        }
        let afterSlashes = rest.dropFirst(2)
        let authorityEnd = afterSlashes.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? afterSlashes.endIndex
        let authority = afterSlashes[..<authorityEnd]
        guard !authority.contains("@") else {
            throw URLSyntaxError("a URL cannot carry userinfo, which hides the real host")
        }
        do {
            (host, port) = try URLSyntax.parseAuthority(authority, scheme: scheme)
        } catch {
            throw URLSyntaxError(error.reason)
        }
        self.scheme = scheme
    }
}
