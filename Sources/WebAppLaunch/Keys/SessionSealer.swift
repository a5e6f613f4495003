/// Seals small payloads (the web app's session cookie) with AES-256-GCM under a key derived
/// for sessions from the keyring, so a cookie is neither readable nor forgeable.
///
/// Text form: base64url of `version u8 | kid_len u8 | kid | iv[12] | ciphertext | tag[16]`,
/// with `"WebAppLaunch-v1 session" || kid` as associated data. Sealed under the signing key;
/// opened under any key that may verify, so rotation does not log users out.
public struct SessionSealer: Sendable {
    private let keyring: Keyring
    private static let version: UInt8 = 1

    /// Creates a sealer.
    /// - Parameter keyring: The keyring whose keys derive session keys.
    public init(keyring: Keyring) {
        self.keyring = keyring
    }

    /// Seals a payload.
    /// - Parameter payload: The bytes to protect.
    /// - Returns: Cookie-safe text.
    /// - Throws: `no_signing_key` or `crypto_failure`.
    public func seal(_ payload: [UInt8]) throws(LaunchError) -> String {
        guard let key = keyring.signingKey, let derived = keyring.derivedKeys(kid: key.kid) else {
            throw LaunchError(.noSigningKey, "the keyring has no active key")
        }
        let kid = Array(key.kid.utf8)
        let iv = try SecureRandom.bytes(count: AES256GCM.ivByteCount)
        let sealed: [UInt8]
        do {
            sealed = try AES256GCM.seal(payload, key: derived.session, iv: iv, associatedData: Labels.session + kid)
        } catch {
            throw LaunchError(error)
        }
        return Base64URL.encode([Self.version, UInt8(kid.count)] + kid + iv + sealed)
    }

    /// Opens sealed text.
    /// - Parameter text: Text made by ``seal(_:)``.
    /// - Returns: The payload, or `nil` when the text is malformed, tampered with, or sealed
    ///   under a key that is unknown or revoked. Callers treat `nil` as "no session".
    public func open(_ text: some StringProtocol) -> [UInt8]? {
        guard text.utf8.count <= 8192, let bytes = Base64URL.decode(text), bytes.count > 2, bytes[0] == Self.version else {
            return nil
        }
        let kidLength = Int(bytes[1])
        let ivStart = 2 + kidLength
        guard kidLength >= 1, bytes.count >= ivStart + AES256GCM.ivByteCount + AES256GCM.tagByteCount else { return nil }
        guard let (key, derived) = keyring.derivedKeys(kidBytes: bytes[2..<ivStart]), key.status.canVerify else { return nil }
        let ivEnd = ivStart + AES256GCM.ivByteCount
        return try? AES256GCM.open(
            bytes[ivEnd...],
            key: derived.session,
            iv: bytes[ivStart..<ivEnd],
            associatedData: ArraySlice(Labels.session + Array(bytes[2..<ivStart]))
        )
    }
}
