internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's `RAND_bytes`.
package enum SecureRandom {
    /// Returns fresh random bytes, for nonces, IVs and new keyring secrets.
    /// - Parameter count: How many bytes.
    /// - Returns: `count` bytes from OpenSSL's DRBG.
    /// - Throws: ``LaunchError/Code/cryptoFailure`` if OpenSSL cannot produce them (never
    ///   silently falls back to a weaker source).
    package static func bytes(count: Int) throws(LaunchError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        let rc = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard rc == 1 else { throw LaunchError(CryptoFailure("RAND_bytes")) }
        return bytes
    }
}
