import Foundation

/// A launch the launcher minted: open ``url`` in the web view at once.
public struct LauncherLaunch: Sendable, Hashable, Codable {
    /// The launch URL (the registered URL plus `launch=…`).
    public let url: URL
    /// When the launch stops being accepted; do not keep the URL past it.
    public let expiresAt: Date

    /// Creates a launch (the client decodes them; this is for previews and tests).
    public init(url: URL, expiresAt: Date) {
        self.url = url
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case url
        case expiresAt = "expires_at"
    }
}
