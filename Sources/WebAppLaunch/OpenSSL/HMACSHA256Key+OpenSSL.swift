internal import COpenSSL
import Synchronization

/// An HMAC-SHA256 key held as a keyed OpenSSL `EVP_MAC_CTX`, so each MAC skips key setup.
///
/// Keying a context costs more than the MAC of a whole launch token; re-initialising an
/// already keyed context with `EVP_MAC_init(ctx, NULL, 0, NULL)` keeps its key. Contexts are
/// not thread-safe, so each computation borrows one from a small pool (or duplicates the
/// keyed template when the pool is empty) and gives it back afterwards.
final class HMACSHA256Key: @unchecked Sendable {
    // Invariants: `template` is keyed in `init` and only ever read (duplicated) afterwards,
    // which OpenSSL allows concurrently. Each context in `pool` is owned by the pool while it
    // sits there and by exactly one caller between `take` and `give`; the mutex guards the array.
    private let template: OpaquePointer
    private let pool = Mutex<[PooledContext]>([])
    private static let maximumPooled = 16

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
        for context in pool.withLock({ $0 }) { EVP_MAC_CTX_free(context.pointer) }
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
        let context = try take()
        var written = 0
        let ok = EVP_MAC_init(context, nil, 0, nil) == 1
            && (prefix.isEmpty || EVP_MAC_update(context, prefix.baseAddress!.assumingMemoryBound(to: UInt8.self), prefix.count) == 1)
            && (message.isEmpty || EVP_MAC_update(context, message.baseAddress!.assumingMemoryBound(to: UInt8.self), message.count) == 1)
            && EVP_MAC_final(context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written, output.count) == 1
        guard ok, written == Self.outputByteCount else {
            EVP_MAC_CTX_free(context)
            throw CryptoFailure("EVP_MAC_final")
        }
        give(context)
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

    private func take() throws(CryptoFailure) -> OpaquePointer {
        if let context = pool.withLock({ $0.popLast() }) { return context.pointer }
        guard let context = EVP_MAC_CTX_dup(template) else { throw CryptoFailure("EVP_MAC_CTX_dup") }
        return context
    }

    private func give(_ pointer: OpaquePointer) {
        let context = PooledContext(pointer: pointer)
        let kept = pool.withLock { pool in
            guard pool.count < Self.maximumPooled else { return false }
            pool.append(context)
            return true
        }
        if !kept { EVP_MAC_CTX_free(pointer) }
    }
}

/// An `EVP_MAC_CTX*` parked in the pool.
private struct PooledContext: @unchecked Sendable {
    // Invariant: a parked context is referenced only by the pool array, so moving it between
    // threads through the mutex is safe.
    let pointer: OpaquePointer
}
