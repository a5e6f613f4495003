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
}
