import Foundation

/// A launch the launcher minted: the URL to open and when it stops being accepted.
public struct MintedLaunch: Sendable, Hashable {
    /// The registered URL plus `launch=…`; open it at once in the web view.
    public let url: String
    /// The token's expiry; the app should not hold the URL past it.
    public let expiresAt: Date
}
