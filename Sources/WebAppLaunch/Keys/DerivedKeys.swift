/// The per-purpose keys HKDF derives from one app key (SPEC.md §2.3).
///
/// Derived once when a keyring, signer, verifier or session sealer is built, so verification
/// never runs HKDF.
final class DerivedKeys: Sendable {
    /// The app key these keys derive from: `HKDF(root secret, "WebAppLaunch-v2 app key" ||
    /// u8 app_len || app)` for a launcher keyring, or the stored key of an app keyring.
    let appKey: [UInt8]
    /// Keyed HMAC-SHA256 for the token MAC.
    let mac: HMACSHA256Key
    /// AES-256-GCM key for sealed claims.
    let seal: [UInt8]
    /// AES-256-GCM key for session cookies.
    let session: [UInt8]
    /// Keyed HMAC-SHA256 that maps a nonce to its replay id.
    let replay: HMACSHA256Key

    /// Derives the four keys of an app from its app key.
    init(appKey: [UInt8]) throws(CryptoFailure) {
        self.appKey = appKey
        mac = try HMACSHA256Key(key: HKDF.deriveKey(secret: appKey, info: Labels.macKey, count: 32))
        seal = try HKDF.deriveKey(secret: appKey, info: Labels.sealKey, count: 32)
        session = try HKDF.deriveKey(secret: appKey, info: Labels.sessionKey, count: 32)
        replay = try HMACSHA256Key(key: HKDF.deriveKey(secret: appKey, info: Labels.replayKey, count: 32))
    }

    /// The app key of `appID` under a root secret: HKDF-SHA256 with an empty salt and
    /// `"WebAppLaunch-v2 app key" || u8 app_len || app` as info (SPEC.md §2.2).
    /// - Parameters:
    ///   - rootSecret: A launcher keyring's secret.
    ///   - appID: A valid app id (1 to 64 bytes of `[A-Za-z0-9._-]`).
    /// - Returns: 32 bytes.
    static func appKey(rootSecret: [UInt8], appID: String) throws(CryptoFailure) -> [UInt8] {
        let app = Array(appID.utf8)
        precondition(!app.isEmpty && app.count <= 255, "app ids are validated before derivation")
        return try HKDF.deriveKey(secret: rootSecret, info: Labels.appKey + [UInt8(app.count)] + app, count: 32)
    }
}
