/// The fixed ASCII labels of format version 1 (SPEC.md, "Labels"). Changing any of them
/// changes every MAC and derived key, so they are versioned with the format.
enum Labels {
    /// Prefixed to the MAC input: a launch-token MAC can never be confused with a MAC the
    /// same key might compute for another purpose.
    static let tokenMAC = Array("WebAppLaunch-v1 token".utf8)
    /// HKDF info for the token MAC key.
    static let macKey = Array("WebAppLaunch-v1 mac key".utf8)
    /// HKDF info for the claims sealing key (AES-256-GCM).
    static let sealKey = Array("WebAppLaunch-v1 seal key".utf8)
    /// HKDF info for the session-cookie sealing key.
    static let sessionKey = Array("WebAppLaunch-v1 session key".utf8)
    /// HKDF info for the key that turns nonces into replay ids.
    static let replayKey = Array("WebAppLaunch-v1 replay key".utf8)
    /// Associated-data prefix for session cookies.
    static let session = Array("WebAppLaunch-v1 session".utf8)
}
