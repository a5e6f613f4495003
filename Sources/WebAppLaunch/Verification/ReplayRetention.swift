/// How long a used launch stays used: as long as any conforming verifier could still accept it.
///
/// A verifier accepts a token until `exp + skew`, where each instance may run with its own
/// `--skew` (at most ``VerificationPolicy``'s cap of 600 s) and its own clock. A store that
/// forgot a launch at one instance's `exp + skew` let an instance with a larger skew, or a
/// clock behind, accept it again. So every store keeps an id until
/// `exp + maximumSkew + margin` (``VerifiedLaunch/replayDeadline``), whatever the local
/// skew, where the margin covers a claim
/// that waits on its store (at most seconds) and clock offsets between instances
/// (NTP keeps them far below five minutes). The verifier's own expiry check still uses the
/// local skew; only forgetting waits for the largest one.
public enum ReplayRetention {
    /// The largest clock skew any verifier of this software accepts, in seconds.
    public static let maximumSkew: UInt64 = 600
    /// Seconds kept beyond `exp + maximumSkew`: the claim timeout plus clock offsets between instances.
    public static let margin: UInt64 = 300

    /// The time until which a launch expiring at `expiresAt` must be remembered.
    /// - Parameter expiresAt: The token's `exp`, seconds since 1970.
    /// - Returns: `exp + maximumSkew + margin`, saturating at `UInt64.max`.
    public static func deadline(expiresAt: UInt64) -> UInt64 {
        let (deadline, overflow) = expiresAt.addingReportingOverflow(maximumSkew + margin)
        return overflow ? .max : deadline
    }
}
