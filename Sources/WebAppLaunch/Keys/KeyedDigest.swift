/// HMAC-SHA256 under a key derived for one named purpose, for identifiers that must not be
/// reversible by anyone without the key: the launcher's log references to a subject and the
/// keys of its negative token cache.
///
/// A bare SHA-256 of a subject identifier can be confirmed by anyone who guesses the
/// identifier (a KVNR-like id has few enough values to enumerate); an HMAC under a key of the
/// launcher's cannot. The key is HKDF-SHA256 of a secret with the purpose in `info`, so one
/// secret never serves two purposes.
package struct KeyedDigest: Sendable {
    private let key: HMACSHA256Key

    /// Derives the digest key for a purpose.
    /// - Parameters:
    ///   - secret: The input keying material (a keyring secret, or fresh random bytes).
    ///   - purpose: A label naming what the digests are for.
    /// - Throws: ``LaunchError`` when OpenSSL fails.
    package init(secret: [UInt8], purpose: String) throws(LaunchError) {
        do {
            let derived = try HKDF.deriveKey(secret: secret, info: Array(("webapp-launch keyed digest\u{0}" + purpose).utf8), count: 32)
            key = try HMACSHA256Key(key: derived)
        } catch {
            throw LaunchError(error)
        }
    }

    /// A digest key for a purpose, derived from the newest active key of a launcher keyring,
    /// so every launcher instance of one deployment computes the same references.
    /// - Parameters:
    ///   - keyring: The launcher keyring.
    ///   - purpose: What the digests are for.
    /// - Returns: `nil` when the keyring has no active key.
    package static func derived(from keyring: Keyring, purpose: String) throws(LaunchError) -> KeyedDigest? {
        guard let signingKey = keyring.signingKey else { return nil }
        return try KeyedDigest(secret: signingKey.secret.bytes, purpose: purpose)
    }

    /// A digest key from fresh random bytes: references stay stable for this process only.
    /// - Parameter purpose: What the digests are for.
    package static func random(purpose: String) throws(LaunchError) -> KeyedDigest {
        try KeyedDigest(secret: SecureRandom.bytes(count: 32), purpose: purpose)
    }

    /// The 32-byte HMAC-SHA256 of a message.
    /// - Parameter message: The bytes.
    /// - Returns: The MAC.
    package func digest(_ message: [UInt8]) throws(LaunchError) -> [UInt8] {
        do {
            return try key.authenticationCode(message: message)
        } catch {
            throw LaunchError(error)
        }
    }
}
