internal import COpenSSL

/// AES-256-GCM through OpenSSL's `EVP_CIPHER`, with a 12-byte IV and a 16-byte tag.
enum AES256GCM {
    /// The IV length used everywhere in this package, in bytes.
    static let ivByteCount = 12
    /// The authentication tag length, in bytes.
    static let tagByteCount = 16
    /// The key length, in bytes.
    static let keyByteCount = 32

    /// Why opening a sealed box failed.
    enum OpenFailure: Error {
        /// The tag did not authenticate the ciphertext, IV and associated data.
        case authenticationFailed
        /// OpenSSL itself failed.
        case crypto(CryptoFailure)
    }

    /// Encrypts and authenticates.
    /// - Parameters:
    ///   - plaintext: The bytes to encrypt.
    ///   - key: 32 bytes.
    ///   - iv: 12 bytes, never reused with the same key (random from `RAND_bytes`).
    ///   - associatedData: Bytes authenticated but not encrypted.
    /// - Returns: `ciphertext || tag`.
    static func seal(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8], associatedData: [UInt8]) throws(CryptoFailure) -> [UInt8] {
        precondition(key.count == keyByteCount && iv.count == ivByteCount, "AES-256-GCM takes a 32-byte key and a 12-byte IV")
        guard let cipher = SharedAlgorithms.shared.aes256GCM else { throw CryptoFailure("EVP_CIPHER_fetch") }
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoFailure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        var length: Int32 = 0
        guard EVP_EncryptInit_ex2(context, cipher, nil, nil, nil) == 1,
              webapplaunch_gcm_set_ivlen(context, Int32(ivByteCount)) == 1,
              EVP_EncryptInit_ex2(context, nil, key, iv, nil) == 1
        else { throw CryptoFailure("EVP_EncryptInit_ex2") }
        if !associatedData.isEmpty {
            guard EVP_EncryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else {
                throw CryptoFailure("EVP_EncryptUpdate(aad)")
            }
        }
        let ok = output.withUnsafeMutableBufferPointer { output -> Bool in
            var total: Int32 = 0
            if !plaintext.isEmpty {
                guard EVP_EncryptUpdate(context, output.baseAddress, &length, plaintext, Int32(plaintext.count)) == 1 else { return false }
                total = length
            }
            guard EVP_EncryptFinal_ex(context, output.baseAddress! + Int(total), &length) == 1 else { return false }
            total += length
            guard Int(total) == plaintext.count else { return false }
            return webapplaunch_gcm_get_tag(context, output.baseAddress! + Int(total), Int32(tagByteCount)) == 1
        }
        guard ok else { throw CryptoFailure("EVP_EncryptFinal_ex") }
        return output
    }

    /// Authenticates and decrypts.
    /// - Parameters:
    ///   - sealed: `ciphertext || tag`.
    ///   - key: 32 bytes.
    ///   - iv: 12 bytes.
    ///   - associatedData: The same associated data given to ``seal(_:key:iv:associatedData:)``.
    /// - Returns: The plaintext, only when the tag verifies.
    static func open(
        _ sealed: ArraySlice<UInt8>,
        key: [UInt8],
        iv: ArraySlice<UInt8>,
        associatedData: ArraySlice<UInt8>
    ) throws(OpenFailure) -> [UInt8] {
        precondition(key.count == keyByteCount && iv.count == ivByteCount, "AES-256-GCM takes a 32-byte key and a 12-byte IV")
        guard sealed.count >= tagByteCount else { throw .authenticationFailed }
        guard let cipher = SharedAlgorithms.shared.aes256GCM else { throw .crypto(CryptoFailure("EVP_CIPHER_fetch")) }
        guard let context = EVP_CIPHER_CTX_new() else { throw .crypto(CryptoFailure("EVP_CIPHER_CTX_new")) }
        defer { EVP_CIPHER_CTX_free(context) }
        let ciphertextCount = sealed.count - tagByteCount
        var plaintext = [UInt8](repeating: 0, count: ciphertextCount)
        var length: Int32 = 0
        let initialised = iv.withUnsafeBufferPointer { iv in
            EVP_DecryptInit_ex2(context, cipher, nil, nil, nil) == 1
                && webapplaunch_gcm_set_ivlen(context, Int32(ivByteCount)) == 1
                && EVP_DecryptInit_ex2(context, nil, key, iv.baseAddress, nil) == 1
        }
        guard initialised else { throw .crypto(CryptoFailure("EVP_DecryptInit_ex2")) }
        if !associatedData.isEmpty {
            let ok = associatedData.withUnsafeBufferPointer { aad in
                EVP_DecryptUpdate(context, nil, &length, aad.baseAddress, Int32(aad.count)) == 1
            }
            guard ok else { throw .crypto(CryptoFailure("EVP_DecryptUpdate(aad)")) }
        }
        let updated = sealed.withUnsafeBufferPointer { sealed in
            plaintext.withUnsafeMutableBufferPointer { output -> Bool in
                if ciphertextCount > 0 {
                    guard EVP_DecryptUpdate(context, output.baseAddress, &length, sealed.baseAddress, Int32(ciphertextCount)) == 1,
                          Int(length) == ciphertextCount
                    else { return false }
                }
                return webapplaunch_gcm_set_tag(context, sealed.baseAddress! + ciphertextCount, Int32(tagByteCount)) == 1
            }
        }
        guard updated else { throw .crypto(CryptoFailure("EVP_DecryptUpdate")) }
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_DecryptFinal_ex(context, &scratch, &length) == 1 else {
            ERR_clear_error()
            throw .authenticationFailed
        }
        return plaintext
    }
}
