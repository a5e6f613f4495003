import Foundation
import WebAppRegistry

/// The deep link that opens the web-app plugin, resolved to a registered app:
/// `navidapro://plugin/webapp?registeredURL=https%3A%2F%2Fmagazin.example%2Fapp`.
///
/// Opening the plugin launches the app with the user's token and KVNR, so this link is the
/// one place a crafted URL could send them to a foreign site. It resolves only when the
/// `registeredURL` parameter names a registry entry exactly: it is decoded once, parsed with
/// `RegisteredURL`'s strict rules (no userinfo, no encoded dots, https or loopback http) and
/// looked up with `Registry.app(at:)`, which compares scheme, host, port, path and query after
/// normalisation. Lookalike hosts simply are not in the registry. The value may be written
/// raw (`registeredURL=https://magazin.example/app`) or percent-encoded once; a `%` left after
/// decoding is refused as double encoding, so a registered URL containing `%` cannot be linked.
public struct PluginLink: Sendable, Hashable {
    /// The link's scheme.
    public static let scheme = "navidapro"
    /// The link's host.
    public static let host = "plugin"
    /// The link's path.
    public static let path = "/webapp"
    /// The one query parameter, naming the app's registered URL.
    public static let parameterName = "registeredURL"

    /// The registered app the link opens.
    public let app: WebApp

    /// Resolves a plugin link against the registry.
    /// - Parameters:
    ///   - text: The link as received (from a page, a push notification or the OS).
    ///   - registry: The registry of apps the plugin may open.
    /// - Throws: ``PluginLinkError`` naming the first problem.
    public init(_ text: String, in registry: Registry) throws(PluginLinkError) {
        let syntax: DeepLinkSyntax
        do throws(DeepLinkError) {
            syntax = try DeepLinkSyntax(text)
        } catch {
            throw PluginLinkError(.malformedLink, error.reason)
        }
        guard syntax.scheme == Self.scheme, syntax.host == Self.host, syntax.path == Self.path else {
            throw PluginLinkError(.notPluginLink, "the link is not `navidapro://plugin/webapp`")
        }
        var values: [String] = []
        for parameter in syntax.parameters {
            guard parameter.name == Self.parameterName else {
                throw PluginLinkError(.unexpectedParameter, "a plugin link carries only `registeredURL`")
            }
            values.append(parameter.value)
        }
        guard values.count <= 1 else {
            throw PluginLinkError(.repeatedRegisteredURL, "a plugin link carries `registeredURL` once")
        }
        guard let value = values.first else {
            throw PluginLinkError(.missingRegisteredURL, "a plugin link needs a `registeredURL`")
        }
        guard !value.contains("%") else {
            throw PluginLinkError(.doubleEncoded, "`registeredURL` must be percent-encoded at most once")
        }
        let url: RegisteredURL
        do throws(RegistryError) {
            url = try RegisteredURL(value)
        } catch {
            throw PluginLinkError(.invalidRegisteredURL, "`registeredURL` is not valid: \(error.reason)")
        }
        guard let app = registry.app(at: url) else {
            throw PluginLinkError(.notRegistered, "no web app is registered at that URL")
        }
        self.app = app
    }

    /// Resolves a plugin link given as a `URL` (e.g. from `onOpenURL`).
    /// - Parameters:
    ///   - url: The link; its `absoluteString` is checked.
    ///   - registry: The registry of apps the plugin may open.
    /// - Throws: ``PluginLinkError`` naming the first problem.
    public init(_ url: URL, in registry: Registry) throws(PluginLinkError) {
        try self.init(url.absoluteString, in: registry)
    }

    /// Builds the plugin link for a registered app, the form ``init(_:in:)`` accepts.
    /// - Parameter app: A registered app.
    /// - Returns: `navidapro://plugin/webapp?registeredURL=` and the canonical URL with every
    ///   character outside `[A-Za-z0-9-._~]` percent-encoded.
    public static func link(for app: WebApp) -> String {
        var unreserved = CharacterSet(charactersIn: "-._~")
        unreserved.formUnion(CharacterSet(charactersIn: "a"..."z"))
        unreserved.formUnion(CharacterSet(charactersIn: "A"..."Z"))
        unreserved.formUnion(CharacterSet(charactersIn: "0"..."9"))
        let encoded = app.url.description.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
        return "\(scheme)://\(host)\(path)?\(parameterName)=\(encoded)"
    }
}
