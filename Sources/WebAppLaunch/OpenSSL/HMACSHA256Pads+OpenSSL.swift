internal import COpenSSL

/// An HMAC-SHA256 key held as its two precomputed SHA-256 pad states (RFC 2104 §4), for
/// MACs of short messages on the hot path.
///
/// ``HMACSHA256Key`` goes through `EVP_MAC`, whose fixed cost per call (re-initialising
/// and copying provider digest contexts) is several times the hashing of a 16-byte nonce.
/// Here a MAC copies two SHA-256 states by value and hashes two short inputs: the same
/// function, bit for bit (the tests compare both types on RFC 4231 and random inputs), at a
/// fraction of the cost. The states are written once in `init` and only read afterwards, so
/// one instance serves every thread without a lock or a pool.
///
/// The token MAC itself stays on ``HMACSHA256Key``: it is the operation the benchmark floor
/// measures, and the one an auditor expects to find as `EVP_MAC`.
final class HMACSHA256Pads: @unchecked Sendable {
    // Invariant: `pads` is initialised in `init`, never mutated afterwards, and cleansed in
    // `deinit`; the C helper only reads it (it copies the states onto its own stack).
    private let pads: UnsafeMutablePointer<webapplaunch_hmac_sha256_pads>

    /// The length of an HMAC-SHA256 output, in bytes.
    static let outputByteCount = 32

    /// Precomputes the pad states of a key.
    /// - Parameter key: The raw key bytes (of any length; longer than 64 bytes is hashed first).
    init(key: [UInt8]) throws(CryptoFailure) {
        let pads = UnsafeMutablePointer<webapplaunch_hmac_sha256_pads>.allocate(capacity: 1)
        let ok = key.withUnsafeBufferPointer { key in
            webapplaunch_hmac_sha256_pads_init(pads, key.baseAddress, key.count)
        }
        guard ok == 1 else {
            OPENSSL_cleanse(pads, MemoryLayout<webapplaunch_hmac_sha256_pads>.size)
            pads.deallocate()
            throw CryptoFailure("SHA256_Init")
        }
        self.pads = pads
    }

    deinit {
        OPENSSL_cleanse(pads, MemoryLayout<webapplaunch_hmac_sha256_pads>.size)
        pads.deallocate()
    }

    /// Computes HMAC-SHA256 of `message` into `output`.
    /// - Parameters:
    ///   - message: The bytes to authenticate.
    ///   - output: Exactly 32 writable bytes that receive the MAC.
    func authenticate(_ message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(CryptoFailure) {
        precondition(output.count == Self.outputByteCount, "an HMAC-SHA256 output buffer holds 32 bytes")
        if message.count == 16 {
            // A nonce: one compression per pad state (the replay id of every launch).
            _ = webapplaunch_hmac_sha256_pads_mac16(
                pads,
                message.baseAddress!.assumingMemoryBound(to: UInt8.self),
                output.baseAddress!.assumingMemoryBound(to: UInt8.self)
            )
            return
        }
        let ok = webapplaunch_hmac_sha256_pads_mac(
            pads,
            message.baseAddress?.assumingMemoryBound(to: UInt8.self),
            message.count,
            output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        )
        guard ok == 1 else { throw CryptoFailure("SHA256_Final") }
    }

    /// Computes HMAC-SHA256 of `message` and returns it.
    /// - Parameter message: The bytes to authenticate.
    /// - Returns: The 32-byte MAC.
    func authenticationCode(message: some Collection<UInt8>) throws(CryptoFailure) -> [UInt8] {
        let message = Array(message)
        var output = [UInt8](repeating: 0, count: Self.outputByteCount)
        let ok = message.withUnsafeBytes { message in
            output.withUnsafeMutableBytes { output in
                (try? authenticate(message, into: output)) != nil
            }
        }
        guard ok else { throw CryptoFailure("SHA256_Final") }
        return output
    }
}
