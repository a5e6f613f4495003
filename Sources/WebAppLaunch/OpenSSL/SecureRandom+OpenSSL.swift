/// Cryptographically secure random bytes from OpenSSL's `RAND_bytes`, small requests
/// through ``RandomReserve`` (drawn in bulk, fork-safe, each byte given out once).
package enum SecureRandom {
    /// Returns fresh random bytes, for nonces, IVs and new keyring secrets.
    /// - Parameter count: How many bytes.
    /// - Returns: `count` bytes from OpenSSL's DRBG.
    /// - Throws: ``LaunchError/Code/cryptoFailure`` if OpenSSL cannot produce them (never
    ///   silently falls back to a weaker source).
    package static func bytes(count: Int) throws(LaunchError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let filled = bytes.withUnsafeMutableBytes { bytes in
            Result { () throws(CryptoFailure) in try RandomReserve.shared.fill(bytes) }
        }
        do {
            try filled.get()
        } catch {
            throw LaunchError(error)
        }
        return bytes
    }
}
