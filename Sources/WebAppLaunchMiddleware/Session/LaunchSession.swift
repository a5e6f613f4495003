import Foundation
import WebAppLaunch

/// A verified launch as the web app keeps it after the 303: the user and where they came from.
///
/// Lives in the sealed session cookie, so a reload works without the `launch` value. The
/// middleware puts it on the request context; handlers read it from there.
public struct LaunchSession: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The app the launch was for.
    public let appID: String
    /// The key that signed the launch.
    public let kid: String
    /// The user's first name.
    public let firstName: String
    /// The user's last name.
    public let lastName: String
    /// The user's KVNR.
    public let kvnumber: String
    /// The access token, when it fits into a cookie (browsers cap cookies near 4 KB); `nil`
    /// for very large tokens.
    public let accessToken: String?
    /// The keyed nonce hash of the launch, for correlating logs.
    public let launchID: String
    /// Seconds since 1970 after which the session is void.
    public let expiresAt: UInt64

    /// Creates a session from a verified launch.
    /// - Parameters:
    ///   - launch: The verified launch.
    ///   - expiresAt: The session's end, seconds since 1970.
    ///   - includeAccessToken: Whether to keep the access token.
    public init(launch: VerifiedLaunch, expiresAt: UInt64, includeAccessToken: Bool = true) {
        appID = launch.header.appID
        kid = launch.header.kid
        firstName = launch.claims.firstName
        lastName = launch.claims.lastName
        kvnumber = launch.claims.kvnr.value
        // An empty token is a launch that carries none (the app's registry entry says so).
        accessToken = includeAccessToken && !launch.claims.accessToken.isEmpty ? launch.claims.accessToken : nil
        launchID = launch.replayID.hex
        self.expiresAt = expiresAt
    }

    /// A session opened from its cookie payload.
    init(payload: SessionPayload) {
        appID = payload.appID
        kid = payload.kid
        firstName = payload.firstName
        lastName = payload.lastName
        kvnumber = payload.kvnumber
        accessToken = payload.accessToken
        launchID = payload.launchID.hex
        expiresAt = payload.expiresAt
    }

    /// The KVNR with only the first letter and the check digit visible.
    public var maskedKVNR: String { KVNR(kvnumber)?.masked ?? "**********" }

    /// Never the values: sessions carry personal data.
    public var description: String { "LaunchSession(app: \(appID), launch: \(launchID))" }
}
