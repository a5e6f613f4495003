/// The per-purpose keys HKDF derives from one keyring secret (SPEC.md, "Keys").
///
/// Derived once when the keyring loads, so verification never runs HKDF.
final class DerivedKeys: Sendable {
    /// Keyed HMAC-SHA256 for the token MAC.
    let mac: HMACSHA256Key
    /// AES-256-GCM key for sealed claims.
    let seal: [UInt8]
    /// AES-256-GCM key for session cookies.
    let session: [UInt8]
    /// Keyed HMAC-SHA256 that maps a nonce to its replay id.
    let replay: HMACSHA256Key
    /// The raw MAC key, kept for the test vectors' intermediate values.
    let macKeyBytes: [UInt8]

    init(secret: KeySecret) throws(CryptoFailure) {
        macKeyBytes = try HKDF.deriveKey(secret: secret.bytes, info: Labels.macKey, count: 32)
        mac = try HMACSHA256Key(key: macKeyBytes)
        seal = try HKDF.deriveKey(secret: secret.bytes, info: Labels.sealKey, count: 32)
        session = try HKDF.deriveKey(secret: secret.bytes, info: Labels.sessionKey, count: 32)
        replay = try HMACSHA256Key(key: try HKDF.deriveKey(secret: secret.bytes, info: Labels.replayKey, count: 32))
    }
}
