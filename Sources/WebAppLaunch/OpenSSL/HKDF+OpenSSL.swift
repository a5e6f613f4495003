internal import COpenSSL

/// HKDF-SHA256 (RFC 5869) through OpenSSL's `EVP_KDF`.
///
/// Used to turn one keyring secret into independent keys per purpose (MAC, sealing,
/// sessions, replay ids), so no secret ever serves two purposes.
enum HKDF {
    /// Derives `count` bytes from input keying material.
    /// - Parameters:
    ///   - secret: The input keying material.
    ///   - salt: The optional salt; empty means RFC 5869's default (zeros).
    ///   - info: The purpose label.
    ///   - count: How many bytes to derive (at most 255 × 32).
    /// - Returns: The derived bytes.
    static func deriveKey(secret: [UInt8], salt: [UInt8] = [], info: [UInt8], count: Int) throws(CryptoFailure) -> [UInt8] {
        precondition(count > 0 && count <= 255 * 32, "HKDF-SHA256 derives 1 to 8160 bytes")
        var output = [UInt8](repeating: 0, count: count)
        let rc = secret.withUnsafeBufferPointer { secret in
            salt.withUnsafeBufferPointer { salt in
                info.withUnsafeBufferPointer { info in
                    output.withUnsafeMutableBufferPointer { output in
                        webapplaunch_hkdf_sha256(
                            secret.baseAddress, secret.count,
                            salt.baseAddress, salt.count,
                            info.baseAddress, info.count,
                            output.baseAddress, output.count
                        )
                    }
                }
            }
        }
        guard rc == 1 else { throw CryptoFailure("EVP_KDF_derive") }
        return output
    }
}
