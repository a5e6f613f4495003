import WebAppRegistry

/// The names of the session cookies, one rule for everything that sets, reads or removes them.
///
/// Over https the cookie carries the `__Host-` prefix, which browsers accept only with
/// `Secure`, `Path=/` and no `Domain`: a sibling subdomain cannot plant or shadow it (cookie
/// tossing). `Path=/` means every app on one origin sees it, so the app id is part of the
/// name, and the session inside is sealed for that app anyway. Plain http (only loopback
/// development) keeps the path-scoped ``plain`` name.
///
/// The gate removes the whole family (``plain`` and every ``hostPrefix`` name) before a
/// request goes upstream, so it asks this type, not the middleware, what the family is.
public enum SessionCookieName {
    /// The name for apps served over plain http (loopback development).
    public static let plain = "webapp_launch_session"
    /// The prefix of the https names; the app id follows.
    public static let hostPrefix = "__Host-" + plain + "_"

    /// The session cookie's name for an audience.
    /// - Parameters:
    ///   - audience: The registered URL a launch matched.
    ///   - appID: The app the session is for.
    /// - Returns: ``hostPrefix`` and the app id over https, ``plain`` otherwise.
    public static func name(for audience: RegisteredURL, appID: String) -> String {
        audience.scheme == "https" ? hostPrefix + appID : plain
    }
}
