import Foundation
import WebAppRegistry

/// A launch URL with the expiry its token carries: what a caller that reports the expiry (the
/// launcher's 201 answer) needs, taken from the token the signer wrote rather than recomputed
/// from a lifetime the caller assumes.
public struct SignedLaunch: Sendable, Hashable {
    /// The registered URL plus `launch=<token>`.
    public let url: String
    /// The token's expiry, in Unix seconds (the header's `exp`).
    public let expiresAt: UInt64

    /// The expiry as a date.
    public var expiryDate: Date { Date(timeIntervalSince1970: TimeInterval(expiresAt)) }
}

extension LaunchSigner {
    /// Mints the launch for a registered app and reports the expiry written into its token.
    ///
    /// - Parameters:
    ///   - appID: The registered app's id.
    ///   - user: The user; names are NFC-normalised, everything is validated.
    ///   - mode: `.sealed` (default: claims encrypted) or `.signed`.
    ///   - lifetime: Seconds until expiry, 1 to ``maximumLifetime``; default 60.
    ///   - now: The issue time (injectable for tests).
    /// - Returns: The URL and its expiry.
    /// - Throws: ``LaunchError``, as ``launchURL(for:user:mode:lifetime:now:)``.
    public func launch(for appID: String, user: LaunchUser, mode: LaunchMode = .sealed, lifetime: UInt64 = defaultLifetime, now: Date = Date()) throws(LaunchError) -> SignedLaunch {
        guard let app = registry.app(id: appID) else {
            throw LaunchError(.unknownApp, "no web app is registered with that id")
        }
        let minted = try mint(for: app, user: user, mode: mode, lifetime: lifetime, now: Self.seconds(now), randomness: nil)
        return SignedLaunch(url: Self.launchURL(audience: app.url, token: minted.token), expiresAt: minted.expiresAt)
    }
}
