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
    ///   - key: The key (its keyed contexts are reused).
    ///   - iv: 12 bytes, never reused with the same key (random from `RAND_bytes`).
    ///   - associatedData: Bytes authenticated but not encrypted.
    /// - Returns: `ciphertext || tag`.
    static func seal(_ plaintext: [UInt8], key: AES256GCMKey, iv: [UInt8], associatedData: [UInt8]) throws(CryptoFailure) -> [UInt8] {
        precondition(iv.count == ivByteCount, "AES-256-GCM takes a 12-byte IV")
        var output = [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        let sealed = output.withUnsafeMutableBytes { output in
            plaintext.withUnsafeBytes { plaintext in
                iv.withUnsafeBytes { iv in
                    associatedData.withUnsafeBytes { associatedData in
                        Result { () throws(CryptoFailure) in
                            try key.seal(plaintext, iv: iv, associatedData: associatedData, into: output)
                        }
                    }
                }
            }
        }
        try sealed.get()
        return output
    }

    /// Encrypts and authenticates into one new buffer that starts with the IV: a sealed
    /// token body, `iv || ciphertext || tag`, with no intermediate copies.
    /// - Parameters: As for ``seal(_:key:iv:associatedData:)``.
    /// - Returns: `iv || ciphertext || tag`.
    static func sealPrefixingIV(_ plaintext: [UInt8], key: AES256GCMKey, iv: [UInt8], associatedData: [UInt8]) throws(CryptoFailure) -> [UInt8] {
        try seal(plaintext, key: key, iv: iv, associatedData: associatedData, after: [])
    }

    /// Encrypts and authenticates into one new buffer that starts with `header` and the IV:
    /// a sealed envelope, `header || iv || ciphertext || tag`, with no intermediate copies.
    /// - Parameters: As for ``seal(_:key:iv:associatedData:)``; `header`: the envelope's
    ///   bytes before the IV (not encrypted; authenticate them through `associatedData`).
    /// - Returns: `header || iv || ciphertext || tag`.
    static func seal(_ plaintext: [UInt8], key: AES256GCMKey, iv: [UInt8], associatedData: [UInt8], after header: [UInt8]) throws(CryptoFailure) -> [UInt8] {
        precondition(iv.count == ivByteCount, "AES-256-GCM takes a 12-byte IV")
        let boxStart = header.count + ivByteCount
        var output = [UInt8](repeating: 0, count: boxStart + plaintext.count + tagByteCount)
        output.replaceSubrange(0..<header.count, with: header)
        output.replaceSubrange(header.count..<boxStart, with: iv)
        let sealed = output.withUnsafeMutableBytes { output in
            plaintext.withUnsafeBytes { plaintext in
                iv.withUnsafeBytes { iv in
                    associatedData.withUnsafeBytes { associatedData in
                        Result { () throws(CryptoFailure) in
                            try key.seal(plaintext, iv: iv, associatedData: associatedData, into: UnsafeMutableRawBufferPointer(rebasing: output[boxStart...]))
                        }
                    }
                }
            }
        }
        try sealed.get()
        return output
    }

    /// Authenticates and decrypts.
    /// - Parameters:
    ///   - sealed: `ciphertext || tag`.
    ///   - key: The key (its keyed contexts are reused).
    ///   - iv: 12 bytes.
    ///   - associatedData: The same associated data given to ``seal(_:key:iv:associatedData:)``.
    /// - Returns: The plaintext, only when the tag verifies.
    static func open(
        _ sealed: ArraySlice<UInt8>,
        key: AES256GCMKey,
        iv: ArraySlice<UInt8>,
        associatedData: ArraySlice<UInt8>
    ) throws(OpenFailure) -> [UInt8] {
        let opened = sealed.withUnsafeBytes { sealed in
            iv.withUnsafeBytes { iv in
                associatedData.withUnsafeBytes { associatedData in
                    Result { () throws(OpenFailure) in try open(sealed, key: key, iv: iv, associatedData: associatedData) }
                }
            }
        }
        return try opened.get()
    }

    /// Authenticates and decrypts borrowed bytes (the verifier reads a token in place).
    /// - Parameters: As for the `ArraySlice` overload.
    /// - Returns: The plaintext, only when the tag verifies.
    static func open(
        _ sealed: UnsafeRawBufferPointer,
        key: AES256GCMKey,
        iv: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer
    ) throws(OpenFailure) -> [UInt8] {
        precondition(iv.count == ivByteCount, "AES-256-GCM takes a 12-byte IV")
        guard sealed.count >= tagByteCount else { throw .authenticationFailed }
        var plaintext = [UInt8](repeating: 0, count: sealed.count - tagByteCount)
        let opened = plaintext.withUnsafeMutableBytes { output in
            Result { () throws(OpenFailure) in try key.open(sealed, iv: iv, associatedData: associatedData, into: output) }
        }
        try opened.get()
        return plaintext
    }

    /// Authenticates and decrypts in place: the verifier opens a sealed token body inside
    /// the token's own buffer, so the claims need no buffer of their own.
    /// - Parameters:
    ///   - sealed: `ciphertext || tag`; on success its first `count - 16` bytes hold the
    ///     plaintext, on failure they hold garbage and must not be read.
    ///   - key: The key (its keyed contexts are reused).
    ///   - iv: 12 bytes, outside `sealed`.
    ///   - associatedData: The associated data given when sealing, outside `sealed`.
    /// - Returns: The plaintext: the front of `sealed`.
    static func openInPlace(
        _ sealed: UnsafeMutableRawBufferPointer,
        key: AES256GCMKey,
        iv: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer
    ) throws(OpenFailure) -> UnsafeRawBufferPointer {
        precondition(iv.count == ivByteCount, "AES-256-GCM takes a 12-byte IV")
        guard sealed.count >= tagByteCount else { throw .authenticationFailed }
        // GCM decrypts a block in place (input and output the same address, as OpenSSL allows).
        let plaintext = UnsafeMutableRawBufferPointer(rebasing: sealed[..<(sealed.count - tagByteCount)])
        try key.open(UnsafeRawBufferPointer(sealed), iv: iv, associatedData: associatedData, into: plaintext)
        return UnsafeRawBufferPointer(plaintext)
    }
}
