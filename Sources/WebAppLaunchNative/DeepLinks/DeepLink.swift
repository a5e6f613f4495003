import Foundation
import WebAppRegistry

/// A deep link into the native app (`navidapro://healthmagazin/details?article_id=606`) that
/// a registered web app is allowed to open.
///
/// A value of this type exists only after the link passed the app's ``DeepLinkAllowlist``:
/// there is no initialiser without one. So a router that takes a `DeepLink` cannot be handed
/// a link the web app was not entitled to, whether it arrived as a navigation or through the
/// `AppInterface` bridge.
///
/// Rules, strict on purpose:
/// - 1 to ``maximumLength`` bytes of printable ASCII; no space, control character (raw or
///   percent-encoded), backslash or Unicode.
/// - `scheme://host[/path][?query]`: no userinfo, no port, no fragment (the router has no
///   use for them and they are classic smuggling places).
/// - The path has no `.`/`..` or empty segments and no `%2e`, `%2f` or `%5c`; it is compared
///   as written, so `/%64etails` is not `/details`.
/// - The host must be on the allowlist; the path must equal an allowed prefix or continue it
///   after a `/` (`/details` allows `/details/7` but not `/detailsX`); every query name must be
///   allowed and appear once.
public struct DeepLink: Sendable, Hashable, CustomStringConvertible {
    /// The longest deep link accepted, in UTF-8 bytes.
    public static let maximumLength = URLSyntax.maximumLength

    /// The scheme, lower case (e.g. `navidapro`).
    public let scheme: String
    /// The host, lower case: the app feature the link opens (e.g. `healthmagazin`).
    public let host: String
    /// The path as written (still percent-encoded), empty or starting with `/`.
    public let path: String
    /// The query parameters, each value percent-decoded once; names are unique.
    public let parameters: [String: String]
    /// The link as a `URL`, for routers that take one.
    public let url: URL

    /// Parses a deep link and checks it against an app's allowlist.
    /// - Parameters:
    ///   - text: The link as the page gave it.
    ///   - allowlist: The registered app's allowlist (``WebApp/deepLinks``); `nil` allows nothing.
    /// - Throws: ``DeepLinkError`` with the first rule the link breaks.
    public init(_ text: String, allowedBy allowlist: DeepLinkAllowlist?) throws(DeepLinkError) {
        let syntax = try DeepLinkSyntax(text)
        guard let allowlist else {
            throw DeepLinkError(.noAllowlist, "this web app may not open deep links")
        }
        guard syntax.scheme == allowlist.scheme else {
            throw DeepLinkError(.schemeNotAllowed, "the deep link's scheme is not the allowed one")
        }
        guard allowlist.hosts.contains(syntax.host) else {
            throw DeepLinkError(.hostNotAllowed, "the deep link's host is not on this web app's allowlist")
        }
        guard Self.isPath(syntax.path, under: allowlist.pathPrefixes) else {
            throw DeepLinkError(.pathNotAllowed, "the deep link's path is not under an allowed prefix")
        }
        var parameters: [String: String] = [:]
        for parameter in syntax.parameters {
            guard allowlist.queryKeys.contains(parameter.name) else {
                throw DeepLinkError(.queryKeyNotAllowed, "the deep link carries a query parameter that is not allowed")
            }
            guard parameters.updateValue(parameter.value, forKey: parameter.name) == nil else {
                throw DeepLinkError(.repeatedQueryKey, "the deep link repeats a query parameter")
            }
        }
        guard let url = URL(string: syntax.canonical) else {
            throw DeepLinkError(.malformed, "the deep link is not a valid URL")
        }
        self.scheme = syntax.scheme
        self.host = syntax.host
        self.path = syntax.path
        self.parameters = parameters
        self.url = url
    }

    /// Parses a deep link given as a `URL` (e.g. a `WKNavigationAction`'s request URL).
    /// - Parameters:
    ///   - url: The link; its `absoluteString` is checked.
    ///   - allowlist: The registered app's allowlist; `nil` allows nothing.
    /// - Throws: ``DeepLinkError`` with the first rule the link breaks.
    public init(_ url: URL, allowedBy allowlist: DeepLinkAllowlist?) throws(DeepLinkError) {
        try self.init(url.absoluteString, allowedBy: allowlist)
    }

    /// The link with scheme and host in lower case; contains nothing secret, safe to log.
    public var description: String { url.absoluteString }

    /// Whether a path equals an allowed prefix or continues it at a segment boundary.
    private static func isPath(_ path: String, under prefixes: [String]) -> Bool {
        if prefixes.isEmpty || prefixes.contains("/") { return true }
        return prefixes.contains { prefix in
            path == prefix || path.hasPrefix(prefix.hasSuffix("/") ? prefix : prefix + "/")
        }
    }
}
