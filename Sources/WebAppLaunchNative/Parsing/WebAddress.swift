/// An `http` or `https` URL reduced to what origin checks need, parsed strictly.
///
/// Foundation's `URL` is lenient and differs between platforms (backslashes, userinfo,
/// numeric hosts), so the origin a decision depends on is computed here from the text with
/// the same rules as ``WebAppRegistry/RegisteredURL``: no userinfo, no backslash, DNS/IPv4/IPv6
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
        guard !text.isEmpty, text.utf8.count <= URLText.maximumLength else {
            throw URLSyntaxError("a URL must be 1 to \(URLText.maximumLength) bytes")
        }
        guard URLText.isPrintableASCII(text) else {
            throw URLSyntaxError("a URL must be printable ASCII without spaces or control characters")
        }
        guard !text.contains("\\") else {
            throw URLSyntaxError("a URL cannot contain a backslash")
        }
        guard let (scheme, rest) = URLText.splitScheme(text), scheme == "https" || scheme == "http" else {
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
        var hostPart = authority
        var portPart: Substring?
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        let host = hostPart.lowercased()
        guard URLText.isValidHost(host) else {
            throw URLSyntaxError("the host is not a valid DNS name or IP address")
        }
        var port: Int?
        if let portPart {
            guard !portPart.isEmpty, portPart.utf8.count <= 5, portPart.utf8.allSatisfy(\.isASCIIDigit),
                  let value = Int(portPart), (1...65535).contains(value)
            else {
                throw URLSyntaxError("the port must be a number from 1 to 65535")
            }
            port = value == (scheme == "https" ? 443 : 80) ? nil : value
        }
        self.scheme = scheme
        self.host = host
        self.port = port
    }
}
