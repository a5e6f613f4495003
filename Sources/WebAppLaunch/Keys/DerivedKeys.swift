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
    let seal: AES256GCMKey
    /// AES-256-GCM key for session cookies.
    let session: AES256GCMKey
    /// Keyed HMAC-SHA256 that maps a nonce to its replay id (pad states: a nonce is 16 bytes,
    /// where `EVP_MAC`'s fixed cost would dominate).
    let replay: HMACSHA256Pads

    /// Derives the four keys of an app from its app key.
    init(appKey: [UInt8]) throws(CryptoFailure) {
        self.appKey = appKey
        mac = try HMACSHA256Key(key: HKDF.deriveKey(secret: appKey, info: Labels.macKey, count: 32))
        seal = AES256GCMKey(key: try HKDF.deriveKey(secret: appKey, info: Labels.sealKey, count: 32))
        session = AES256GCMKey(key: try HKDF.deriveKey(secret: appKey, info: Labels.sessionKey, count: 32))
        replay = try HMACSHA256Pads(key: HKDF.deriveKey(secret: appKey, info: Labels.replayKey, count: 32))
    }

    /// The replay id of a nonce: the first 16 bytes of HMAC-SHA256 under the replay key
    /// (SPEC.md §2.3), computed on the stack.
    /// - Parameter nonce: The token's 16-byte nonce.
    /// - Returns: The id a replay store claims.
    func replayID(nonce: some Collection<UInt8>) throws(CryptoFailure) -> ReplayID {
        precondition(nonce.count == TokenLayout.nonceByteCount, "a nonce is 16 bytes")
        var nonceBytes = (UInt64(0), UInt64(0))
        var digest = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &nonceBytes) { $0.copyBytes(from: nonce) }
        let computed = withUnsafeBytes(of: &nonceBytes) { nonce in
            withUnsafeMutableBytes(of: &digest) { digest in
                Result { () throws(CryptoFailure) in try replay.authenticate(nonce, into: digest) }
            }
        }
        try computed.get()
        // The digest's first 16 bytes, read big-endian as ReplayID defines its halves.
        return ReplayID(high: UInt64(bigEndian: digest.0), low: UInt64(bigEndian: digest.1))
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
