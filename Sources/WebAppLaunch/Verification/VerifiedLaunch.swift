import WebAppRegistry

/// A launch that passed every check of ``LaunchVerifier`` (all but replay, which the server
/// adds by claiming ``replayID`` until ``replayDeadline``).
public struct VerifiedLaunch: Sendable, Hashable {
    /// The authenticated header.
    public let header: LaunchHeader
    /// The authenticated (and, in sealed mode, decrypted) claims.
    public let claims: LaunchClaims
    /// The keyed hash of the nonce that a replay store claims.
    public let replayID: ReplayID
    /// Seconds since 1970 until which the replay store must remember the nonce:
    /// ``ReplayRetention/deadline(expiresAt:)``, `exp + 600 + 300`: past the largest skew any
    /// verifier may use, so no instance of a fleet can accept the launch again once its
    /// claim is forgotten.
    public let replayDeadline: UInt64
    /// The configured audience the token's registered URL matched byte for byte: where the
    /// 303 goes and what the session cookie is scoped to, so no caller searches for it again.
    public let audience: RegisteredURL
    /// The first second (since 1970) at which the launch is no longer accepted: its expiry
    /// plus the verifier's clock skew, the rule it was verified under; `nil` when that sum
    /// passes the 64-bit range (it then never ends).
    public let acceptedUntil: UInt64?

    /// Whether the launch is still accepted at `now`, by the verifier's own time rule: a
    /// claim that waited on its replay store is checked again with it, so no caller repeats
    /// the skew arithmetic.
    /// - Parameter now: Seconds since 1970.
    /// - Returns: `false` once ``acceptedUntil`` is reached.
    public func isAccepted(at now: UInt64) -> Bool {
        acceptedUntil.map { now < $0 } ?? true
    }
}
