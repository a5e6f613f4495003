/// The clear part of a launch token: everything but the claims and the MAC.
///
/// Readable by anyone holding the URL, in either mode. Only trust a header that came out of
/// ``LaunchVerifier``; ``LaunchInspector`` returns unverified headers for debugging.
public struct LaunchHeader: Sendable, Hashable {
    /// The format version (2).
    public let version: UInt8
    /// Signed or sealed.
    public let mode: LaunchMode
    /// The id of the key that made the MAC.
    public let kid: String
    /// Issued at, seconds since 1970 (UTC).
    public let issuedAt: UInt64
    /// Expires at, seconds since 1970 (UTC); the token is refused from then on (plus skew).
    public let expiresAt: UInt64
    /// 16 random bytes from `RAND_bytes`, unique per launch; the replay store claims their
    /// keyed hash (``VerifiedLaunch/replayID``). Built when read: the header holds them inline.
    public var nonce: [UInt8] { nonceBytes.bytes }
    /// The registered app id the launch is for.
    public let appID: String
    /// The registered URL, normalised, the launch is for.
    public let audience: String
    /// The nonce, inline (no allocation per verified launch).
    let nonceBytes: NonceBytes

    /// Creates a header from its fields; `nonce` is exactly 16 bytes.
    init(version: UInt8, mode: LaunchMode, kid: String, issuedAt: UInt64, expiresAt: UInt64, nonce: some Collection<UInt8>, appID: String, audience: String) {
        self.version = version
        self.mode = mode
        self.kid = kid
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.nonceBytes = NonceBytes(nonce)
        self.appID = appID
        self.audience = audience
    }
}
