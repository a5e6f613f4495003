internal import COpenSSL

/// An HMAC-SHA256 key held as a keyed OpenSSL `EVP_MAC_CTX`, so each MAC skips key setup.
///
/// Keying a context costs more than the MAC of a whole launch token; re-initialising an
/// already keyed context with `EVP_MAC_init(ctx, NULL, 0, NULL)` keeps its key. Contexts are
/// not thread-safe, so each computation borrows one from a small pool (or duplicates the
/// keyed template when the pool is empty) and gives it back afterwards.
final class HMACSHA256Key: @unchecked Sendable {
    // Invariants: `template` is keyed in `init` and only ever read (duplicated) afterwards,
    // which OpenSSL allows concurrently. `pool` hands each keyed duplicate to one caller at a time.
    private let template: OpaquePointer
    private let pool = ContextPool { EVP_MAC_CTX_free($0) }

    /// The length of an HMAC-SHA256 output, in bytes.
    static let outputByteCount = 32

    /// Keys a template context.
    /// - Parameter key: The raw key bytes (derived with HKDF; never a user password).
    init(key: [UInt8]) throws(CryptoFailure) {
        guard let mac = SharedAlgorithms.shared.hmac else { throw CryptoFailure("EVP_MAC_fetch") }
        guard let context = EVP_MAC_CTX_new(mac) else { throw CryptoFailure("EVP_MAC_CTX_new") }
        let keyed = key.withUnsafeBufferPointer { buffer in
            webapplaunch_hmac_sha256_init(context, buffer.baseAddress, buffer.count)
        }
        guard keyed == 1 else {
            EVP_MAC_CTX_free(context)
            throw CryptoFailure("EVP_MAC_init")
        }
        self.template = context
    }

    deinit {
        EVP_MAC_CTX_free(template)
    }

    /// Computes HMAC-SHA256 over the concatenation `prefix || message`.
    ///
    /// - Parameters:
    ///   - prefix: Bytes MACed first (the domain-separation label).
    ///   - message: Bytes MACed after the prefix.
    ///   - output: Exactly 32 writable bytes that receive the MAC.
    func authenticate(
        prefix: UnsafeRawBufferPointer,
        message: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(CryptoFailure) {
        precondition(output.count == Self.outputByteCount, "an HMAC-SHA256 output buffer holds 32 bytes")
        let template = template
        let context = try pool.take { () throws(CryptoFailure) -> OpaquePointer in
            guard let context = EVP_MAC_CTX_dup(template) else { throw CryptoFailure("EVP_MAC_CTX_dup") }
            return context
        }
        var written = 0
        let ok = EVP_MAC_init(context, nil, 0, nil) == 1
            && (prefix.isEmpty || EVP_MAC_update(context, prefix.baseAddress!.assumingMemoryBound(to: UInt8.self), prefix.count) == 1)
            && (message.isEmpty || EVP_MAC_update(context, message.baseAddress!.assumingMemoryBound(to: UInt8.self), message.count) == 1)
            && EVP_MAC_final(context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written, output.count) == 1
        guard ok, written == Self.outputByteCount else {
            pool.discard(context)
            throw CryptoFailure("EVP_MAC_final")
        }
        pool.give(context)
    }

    /// Computes HMAC-SHA256 over `prefix || message` and returns it.
    /// - Parameters:
    ///   - prefix: Bytes MACed first.
    ///   - message: Bytes MACed after the prefix.
    /// - Returns: The 32-byte MAC.
    func authenticationCode(prefix: [UInt8] = [], message: [UInt8]) throws(CryptoFailure) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Self.outputByteCount)
        do {
            try prefix.withUnsafeBytes { prefix in
                try message.withUnsafeBytes { message in
                    try output.withUnsafeMutableBytes { output in
                        try authenticate(prefix: prefix, message: message, into: output)
                    }
                }
            }
        } catch let failure as CryptoFailure {
            throw failure
        } catch {
            throw CryptoFailure("HMAC")
        }
        return output
    }
}
