import WebAppRegistry

/// A web app this server serves: its registry entry and the public URL it is reached at.
///
/// The public URL is the audience launches must carry. It comes from configuration only,
/// never from the `Host` or `X-Forwarded-*` headers of a request.
public struct ServedApp: Sendable {
    /// The registry entry (id, title, deep-link allowlist).
    public let app: WebApp
    /// The URL the app is served at: the verifier's audience; its path is the route.
    public let publicURL: RegisteredURL

    /// Serves an app at its registered URL.
    /// - Parameter app: The registry entry.
    public init(_ app: WebApp) {
        self.app = app
        self.publicURL = app.url
    }

    /// Serves an app at an explicit public URL.
    /// - Parameters:
    ///   - app: The registry entry.
    ///   - publicURL: The audience launches must carry.
    public init(_ app: WebApp, publicURL: RegisteredURL) {
        self.app = app
        self.publicURL = publicURL
    }
}
