import Foundation

/// What the native app does with a navigation its web view asks about.
///
/// A value rather than a `WKNavigationActionPolicy`, so the decision is testable without
/// WebKit and the app can act on the two outcomes WebKit cannot express itself (routing a deep
/// link, opening a browser); for both of those the web view's own navigation is cancelled.
public enum NavigationDecision: Sendable, Hashable {
    /// Load it in the web view: the launched app's own origin.
    case allow
    /// Cancel the web view's navigation and open this allowlisted deep link in the app.
    case routeInApp(DeepLink)
    /// Cancel the web view's navigation and open this other `https` site outside the app
    /// (`UIApplication.open`), where it gets none of the app's bridge or identity.
    case openExternally(URL)
    /// Cancel and do nothing else.
    case cancel(NavigationRefusal)

    /// Whether the web view itself may load the URL; `false` for every other outcome,
    /// which is what `decidePolicyFor` must answer with `.cancel`.
    public var allowsWebViewLoad: Bool {
        if case .allow = self { return true }
        return false
    }

    /// The refusal, when the decision is ``cancel(_:)``.
    public var refusal: NavigationRefusal? {
        if case .cancel(let refusal) = self { return refusal }
        return nil
    }
}
