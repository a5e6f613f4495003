internal import COpenSSL

/// An AES-256 key for GCM, with a pool of contexts that already hold its key schedule.
///
/// Creating and keying an `EVP_CIPHER_CTX` (the AES key expansion and GCM's hash-key
/// table) costs more than sealing or opening a launch's claims; a keyed context only needs
/// a fresh IV per message (`EVP_CipherInit_ex2` with a NULL cipher and key keeps the
/// schedule). Contexts are not thread-safe, so each operation borrows one from the pool.
/// A context whose operation failed, including a tag that did not verify, is freed rather
/// than returned, so no later message can observe a half-finished state.
final class AES256GCMKey: @unchecked Sendable {
    // Invariant: `bytes` is written in `init` and only read afterwards (to key new contexts).
    /// The raw key: read to key new contexts, and by the vector tests.
    let bytes: [UInt8]
    private let pool = ContextPool { EVP_CIPHER_CTX_free($0) }

    /// Holds a key.
    /// - Parameter key: 32 bytes (derived with HKDF).
    init(key: [UInt8]) {
        precondition(key.count == AES256GCM.keyByteCount, "AES-256-GCM takes a 32-byte key")
        self.bytes = key
    }

    /// Encrypts `plaintext` and writes `ciphertext || tag` to `output`.
    /// - Parameters:
    ///   - plaintext: The bytes to encrypt.
    ///   - iv: 12 bytes, never reused with this key.
    ///   - associatedData: Bytes authenticated but not encrypted.
    ///   - output: Exactly `plaintext.count + 16` writable bytes.
    func seal(
        _ plaintext: UnsafeRawBufferPointer,
        iv: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(CryptoFailure) {
        precondition(iv.count == AES256GCM.ivByteCount && output.count == plaintext.count + AES256GCM.tagByteCount)
        let context = try borrow()
        var length: Int32 = 0
        let out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let ok = webapplaunch_gcm_rearm(context, iv.baseAddress!.assumingMemoryBound(to: UInt8.self), 1) == 1
            && (associatedData.isEmpty || EVP_EncryptUpdate(context, nil, &length, Self.bytes(associatedData), Int32(associatedData.count)) == 1)
            && (plaintext.isEmpty || (EVP_EncryptUpdate(context, out, &length, Self.bytes(plaintext), Int32(plaintext.count)) == 1
                && Int(length) == plaintext.count))
            && EVP_EncryptFinal_ex(context, out + plaintext.count, &length) == 1 && length == 0
            && webapplaunch_gcm_get_tag(context, out + plaintext.count, Int32(AES256GCM.tagByteCount)) == 1
        guard ok else {
            pool.discard(context)
            throw CryptoFailure("EVP_EncryptFinal_ex")
        }
        pool.give(context)
    }

    /// Authenticates `ciphertext || tag` and writes the plaintext to `output`; `output`
    /// must not be used when this throws.
    /// - Parameters:
    ///   - sealed: `ciphertext || tag`, at least 16 bytes.
    ///   - iv: 12 bytes.
    ///   - associatedData: The associated data given when sealing.
    ///   - output: Exactly `sealed.count - 16` writable bytes.
    func open(
        _ sealed: UnsafeRawBufferPointer,
        iv: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(AES256GCM.OpenFailure) {
        precondition(iv.count == AES256GCM.ivByteCount && sealed.count >= AES256GCM.tagByteCount)
        let ciphertextCount = sealed.count - AES256GCM.tagByteCount
        precondition(output.count == ciphertextCount)
        let context: OpaquePointer
        do { context = try borrow() } catch { throw .crypto(error) }
        var length: Int32 = 0
        let input = Self.bytes(sealed)
        let ok = webapplaunch_gcm_rearm(context, iv.baseAddress!.assumingMemoryBound(to: UInt8.self), 0) == 1
            && (associatedData.isEmpty || EVP_DecryptUpdate(context, nil, &length, Self.bytes(associatedData), Int32(associatedData.count)) == 1)
            && (ciphertextCount == 0 || (EVP_DecryptUpdate(context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, input, Int32(ciphertextCount)) == 1
                && Int(length) == ciphertextCount))
            && webapplaunch_gcm_set_tag(context, input + ciphertextCount, Int32(AES256GCM.tagByteCount)) == 1
        guard ok else {
            pool.discard(context)
            throw .crypto(CryptoFailure("EVP_DecryptUpdate"))
        }
        var scratch = (UInt64(0), UInt64(0))
        let verified = withUnsafeMutableBytes(of: &scratch) { scratch in
            EVP_DecryptFinal_ex(context, scratch.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) == 1
        }
        guard verified else {
            ERR_clear_error()
            pool.discard(context)
            throw .authenticationFailed
        }
        pool.give(context)
    }

    /// A parked context, or a new one keyed with this key (IV length 12, direction set per use).
    private func borrow() throws(CryptoFailure) -> OpaquePointer {
        let key = bytes
        return try pool.take { () throws(CryptoFailure) -> OpaquePointer in
            guard let cipher = SharedAlgorithms.shared.aes256GCM else { throw CryptoFailure("EVP_CIPHER_fetch") }
            guard let context = EVP_CIPHER_CTX_new() else { throw CryptoFailure("EVP_CIPHER_CTX_new") }
            let keyed = EVP_CipherInit_ex2(context, cipher, nil, nil, 1, nil) == 1
                && webapplaunch_gcm_set_ivlen(context, Int32(AES256GCM.ivByteCount)) == 1
                && EVP_CipherInit_ex2(context, nil, key, nil, 1, nil) == 1
            guard keyed else {
                EVP_CIPHER_CTX_free(context)
                throw CryptoFailure("EVP_CipherInit_ex2")
            }
            return context
        }
    }

    private static func bytes(_ buffer: UnsafeRawBufferPointer) -> UnsafePointer<UInt8> {
        buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
    }
}
