/// The secret of one keyring key: at least 32 random bytes.
///
/// Its `description` never prints the bytes, so a secret that reaches a log line or an error
/// message by accident stays secret.
///
/// Two secrets are equal only through a constant-time comparison (`CRYPTO_memcmp`), and a
/// secret is not `Hashable`: a hash of secret bytes in a set or dictionary would be a side
/// channel and a copy.
public struct KeySecret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The shortest secret accepted, in bytes. Shorter secrets are rejected with an error, not
    /// an assertion: a short HMAC key is a weak key in release builds too.
    public static let minimumByteCount = 32
    /// The longest secret accepted, in bytes.
    public static let maximumByteCount = 128

    let bytes: [UInt8]

    /// Wraps secret bytes.
    /// - Parameter bytes: 32 to 128 bytes from a CSPRNG.
    /// - Throws: ``KeyringError/Code/invalidSecret`` when the length is out of range.
    public init(bytes: [UInt8]) throws(KeyringError) {
        guard bytes.count >= Self.minimumByteCount, bytes.count <= Self.maximumByteCount else {
            throw KeyringError(.invalidSecret, "a key secret must be \(Self.minimumByteCount) to \(Self.maximumByteCount) bytes, not \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Generates a fresh 32-byte secret with OpenSSL's `RAND_bytes`.
    /// - Returns: A new secret.
    public static func generate() throws(LaunchError) -> KeySecret {
        let bytes = try SecureRandom.bytes(count: minimumByteCount)
        do { return try KeySecret(bytes: bytes) } catch { fatalError("32 random bytes are always a valid secret") }
    }

    /// The secret as unpadded base64url, the keyring file's encoding.
    public var base64URLEncoded: String { Base64URL.encode(bytes) }

    /// Compares in constant time for equal lengths (lengths are not secret: 32 to 128 bytes).
    public static func == (lhs: KeySecret, rhs: KeySecret) -> Bool {
        ConstantTime.equals(lhs.bytes, rhs.bytes)
    }

    public var description: String { "KeySecret(\(bytes.count) bytes, redacted)" }
    public var debugDescription: String { description }
}
