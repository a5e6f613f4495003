import Foundation
import WebAppRegistry

/// Decides every navigation in a web view that shows one launched web app.
///
/// The web view holds the user's session with the app and exposes the `AppInterface`
/// bridge, so only the app's own origin may load in it. The rules, main frame first:
///
/// | URL | Decision |
/// |---|---|
/// | `https` on the app's origin (scheme, host, port) | ``NavigationDecision/allow`` |
/// | `http` on the app's loopback origin, development allowed | ``NavigationDecision/allow`` |
/// | the deep-link scheme, on the app's allowlist | ``NavigationDecision/routeInApp(_:)`` |
/// | other `https` | ``NavigationDecision/openExternally(_:)`` |
/// | deep link not on the allowlist | ``NavigationDecision/cancel(_:)`` `deep_link_refused` |
/// | other `http` | cancel, `insecure_http` |
/// | `javascript:`, `data:`, `file:`, `blob:`, `about:`, any other scheme | cancel, `forbidden_scheme` |
/// | malformed (userinfo, backslash, control characters, Unicode, > 2048 bytes) | cancel, `malformed_url` |
///
/// Subframes and redirects go through the same rules and are then only ever tightened: a
/// result that would leave the web view (route in app, open externally) becomes cancel with
/// `indirect_navigation`, because neither is a user's tap on the page. `about:blank` and
/// `about:srcdoc` are cancelled in subframes too: the app's pages have no need for scriptable
/// blank frames, and allowing them would be the one exception to "only the app's origin loads".
public struct NavigationPolicy: Sendable {
    /// The launched web app whose origin and allowlist the decisions use.
    public let app: WebApp
    /// Whether plain `http` is allowed on the app's own loopback origin (development builds).
    public let allowsLoopbackHTTP: Bool

    /// Creates the policy for one launched app.
    /// - Parameters:
    ///   - app: The registered app the web view was opened for.
    ///   - allowsLoopbackHTTP: `true` only in development, to load `http://localhost…` apps.
    public init(app: WebApp, allowsLoopbackHTTP: Bool = false) {
        self.app = app
        self.allowsLoopbackHTTP = allowsLoopbackHTTP
    }

    /// Decides one navigation.
    /// - Parameters:
    ///   - url: The requested URL's text (`navigationAction.request.url?.absoluteString`).
    ///   - isMainFrame: `false` for a navigation in an iframe (`targetFrame?.isMainFrame != true`).
    ///   - isRedirect: `true` when the navigation was not a user's action on the page: a server
    ///     or script redirect (map WebKit's `navigationType == .other` to `true`).
    /// - Returns: The decision; never throws, because every failure is a cancel.
    public func decision(for url: String, isMainFrame: Bool = true, isRedirect: Bool = false) -> NavigationDecision {
        let direct = mainFrameDecision(for: url)
        if isMainFrame && !isRedirect { return direct }
        switch direct {
        case .allow, .cancel:
            return direct
        case .routeInApp, .openExternally:
            return .cancel(NavigationRefusal(.indirectNavigation, "only a user's main-frame navigation may leave the web view"))
        }
    }

    /// Decides one navigation given as a `URL`, as WebKit hands it over.
    /// - Parameters:
    ///   - url: The requested URL; `nil` is cancelled.
    ///   - isMainFrame: `false` for a navigation in an iframe.
    ///   - isRedirect: `true` when the navigation was not a user's action on the page.
    /// - Returns: The decision.
    public func decision(for url: URL?, isMainFrame: Bool = true, isRedirect: Bool = false) -> NavigationDecision {
        guard let url else {
            return .cancel(NavigationRefusal(.malformedURL, "the navigation has no URL"))
        }
        return decision(for: url.absoluteString, isMainFrame: isMainFrame, isRedirect: isRedirect)
    }

    /// Whether a frame's security origin is the launched app's own, so its `AppInterface`
    /// messages may be acted on.
    ///
    /// WebKit delivers script messages from every frame, including sandboxed or cross-origin
    /// ones (whose origin is opaque: empty protocol and host). Check
    /// `message.frameInfo.securityOrigin` with this before decoding a ``BridgeMessage``.
    /// - Parameters:
    ///   - scheme: `WKSecurityOrigin.protocol`.
    ///   - host: `WKSecurityOrigin.host` (IPv6 with or without brackets).
    ///   - port: `WKSecurityOrigin.port`; `0` means the scheme's default.
    /// - Returns: `true` only for the app's origin over https, or over http on loopback when
    ///   ``allowsLoopbackHTTP`` is set.
    public func isAppOrigin(scheme: String, host: String, port: Int) -> Bool {
        let scheme = scheme.lowercased()
        var host = host.lowercased()
        if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }
        let defaultPort = scheme == "https" ? 443 : 80
        let port: Int? = port == 0 || port == defaultPort ? nil : port
        guard scheme == "https" || (scheme == "http" && allowsLoopbackHTTP && RegisteredURL.isLoopback(host)) else {
            return false
        }
        return scheme == app.url.scheme && host == app.url.host && port == app.url.port
    }

    private func mainFrameDecision(for text: String) -> NavigationDecision {
        guard !text.isEmpty, text.utf8.count <= URLSyntax.maximumLength, URLSyntax.isPrintableASCII(text) else {
            return .cancel(NavigationRefusal(.malformedURL, "a URL must be 1 to \(URLSyntax.maximumLength) bytes of printable ASCII"))
        }
        guard let (scheme, _) = URLSyntax.splitScheme(text) else {
            return .cancel(NavigationRefusal(.malformedURL, "the URL has no valid scheme"))
        }
        let deepLinkScheme = app.deepLinks?.scheme ?? "navidapro"
        switch scheme {
        case "https", "http":
            return webDecision(for: text)
        case deepLinkScheme:
            do throws(DeepLinkError) {
                return .routeInApp(try DeepLink(text, allowedBy: app.deepLinks))
            } catch {
                return .cancel(NavigationRefusal(.deepLinkRefused, "the deep link is not allowed: \(error.reason)", deepLinkError: error))
            }
        default:
            return .cancel(NavigationRefusal(.forbiddenScheme, "only https, loopback http and allowlisted deep links may be opened"))
        }
    }

    private func webDecision(for text: String) -> NavigationDecision {
        let address: WebAddress
        do throws(URLSyntaxError) {
            address = try WebAddress(text)
        } catch {
            return .cancel(NavigationRefusal(.malformedURL, error.reason))
        }
        let isSameOrigin = address.origin == app.url.origin
        switch address.scheme {
        case "https" where isSameOrigin:
            return .allow
        case "http" where isSameOrigin && allowsLoopbackHTTP && RegisteredURL.isLoopback(address.host):
            return .allow
        case "https":
            guard let url = URL(string: text) else {
                return .cancel(NavigationRefusal(.malformedURL, "the URL cannot be opened"))
            }
            return .openExternally(url)
        default:
            return .cancel(NavigationRefusal(.insecureHTTP, "plain http is allowed only on the app's own loopback origin in development"))
        }
    }
}
