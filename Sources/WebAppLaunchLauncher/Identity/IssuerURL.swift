import Foundation
import WebAppRegistry

/// Rules for the identity provider's URLs (issuer, discovery, introspection, token endpoint).
public enum IssuerURL {
    /// Whether an issuer or endpoint URL is acceptable: https, or http on a loopback host (a
    /// development provider on this machine). A plain-http provider elsewhere would expose
    /// every user's bearer token on the network.
    /// - Parameter url: The URL.
    /// - Returns: `true` when the launcher may send tokens there.
    public static func isAcceptable(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), url.host != nil, url.user == nil, url.query == nil, url.fragment == nil
        else { return false }
        return scheme == "https" || (scheme == "http" && isLoopback(url))
    }

    /// Whether a URL's host is a loopback address, decided on the parsed host by the one rule
    /// every entry point shares (``RegisteredURL/hasLoopbackHost(_:)``): `localhost`,
    /// canonical `127.x.y.z` and `::1`. `http://127.evil.example/` is a DNS name.
    /// - Parameter url: The URL.
    /// - Returns: `true` for a loopback host.
    public static func isLoopback(_ url: URL) -> Bool {
        RegisteredURL.hasLoopbackHost(url.absoluteString)
    }
}
