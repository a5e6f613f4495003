import Foundation

/// A launch the launcher minted: open ``url`` in the web view at once. The document's
/// `Launch` (generated from `openapi.yaml`) with its URL parsed.
public struct LauncherLaunch: Sendable, Hashable {
    /// The launch URL (the registered URL plus `launch=…`).
    public let url: URL
    /// When the launch stops being accepted; do not keep the URL past it.
    public let expiresAt: Date

    /// Creates a launch (the client reads them from the launcher; this is for previews and tests).
    public init(url: URL, expiresAt: Date) {
        self.url = url
        self.expiresAt = expiresAt
    }

    /// The launch for the document's launch, or `nil` when its `url` is no URL.
    init?(_ launch: Components.Schemas.Launch) {
        guard let url = URL(string: launch.url) else { return nil }
        self.init(url: url, expiresAt: launch.expiresAt)
    }
}
