import Foundation

/// Rules for the identity provider's URLs.
public enum IssuerURL {
    /// Whether an issuer URL is acceptable: https, or http on a loopback host (a development
    /// provider on this machine). A plain-http issuer elsewhere would expose every user's
    /// bearer token on the network.
    /// - Parameter url: The issuer URL.
    /// - Returns: `true` when the launcher may send tokens there.
    public static func isAcceptable(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), url.host != nil, url.user == nil, url.query == nil, url.fragment == nil
        else { return false }
        return scheme == "https" || (scheme == "http" && isLoopback(url))
    }

    /// Whether a URL's host is a loopback address.
    /// - Parameter url: The URL.
    /// - Returns: `true` for `127.0.0.0/8`, `::1` and `localhost`.
    public static func isLoopback(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
