/// The verifier's tolerances. There is deliberately no setting that turns a check off.
public struct VerificationPolicy: Sendable, Hashable {
    /// Clock difference tolerated between launcher and verifier, in seconds, in both
    /// directions. Default 60.
    public let clockSkew: UInt64
    /// The longest `exp - iat` accepted, in seconds. Default 300 (the signer's maximum).
    public let maximumLifetime: UInt64
    /// The longest `launch` value accepted, in bytes of its UTF-8 text; longer values are rejected before
    /// decoding or any MAC work. Default 16384.
    public let maximumTokenLength: Int

    /// Creates a policy.
    /// - Parameters:
    ///   - clockSkew: Seconds of tolerated clock difference (at most 600).
    ///   - maximumLifetime: Longest accepted token lifetime in seconds (at most 3600).
    ///   - maximumTokenLength: Longest accepted token text.
    public init(clockSkew: UInt64 = 60, maximumLifetime: UInt64 = 300, maximumTokenLength: Int = 16384) {
        precondition(clockSkew <= ReplayRetention.maximumSkew, "a clock skew above 10 minutes is not a skew, it is a disabled check")
        precondition(maximumLifetime >= 1 && maximumLifetime <= 3600, "the maximum lifetime must be 1 s to 1 h")
        precondition(maximumTokenLength >= 128, "tokens need at least 128 characters")
        self.clockSkew = clockSkew
        self.maximumLifetime = maximumLifetime
        self.maximumTokenLength = maximumTokenLength
    }
}
