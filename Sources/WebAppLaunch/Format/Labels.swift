/// The fixed ASCII labels of format version 2 (SPEC.md, "Labels"). Changing any of them
/// changes every MAC and derived key, so they are versioned with the format.
enum Labels {
    /// HKDF info prefix for an app key: `appKey || u8 app_len || app`. The only use of a
    /// keyring's root secret, so one app's keys never reveal another's.
    static let appKey = Array("WebAppLaunch-v2 app key".utf8)
    /// Prefixed to the MAC input: a launch-token MAC can never be confused with a MAC the
    /// same key might compute for another purpose.
    static let tokenMAC = Array("WebAppLaunch-v2 token".utf8)
    /// HKDF info for the token MAC key (from the app key).
    static let macKey = Array("WebAppLaunch-v2 mac key".utf8)
    /// HKDF info for the claims sealing key (AES-256-GCM, from the app key).
    static let sealKey = Array("WebAppLaunch-v2 seal key".utf8)
    /// HKDF info for the session-cookie sealing key (from the app key).
    static let sessionKey = Array("WebAppLaunch-v2 session key".utf8)
    /// HKDF info for the key that turns nonces into replay ids (from the app key).
    static let replayKey = Array("WebAppLaunch-v2 replay key".utf8)
    /// Associated-data prefix for session cookies.
    static let session = Array("WebAppLaunch-v2 session".utf8)
}
