internal import COpenSSL

/// SHA-256 through OpenSSL's `EVP_Digest`, for fingerprints that must not reveal their input
/// (the short access-token fingerprint the CLI prints, test cross-checks).
package enum SHA256 {
    /// Hashes bytes.
    /// - Parameter bytes: The input.
    /// - Returns: The 32-byte digest.
    package static func hash(_ bytes: [UInt8]) throws(LaunchError) -> [UInt8] {
        guard let md = SharedAlgorithms.shared.sha256 else { throw LaunchError(CryptoFailure("EVP_MD_fetch")) }
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let rc = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, md, nil)
            }
        }
        guard rc == 1, length == 32 else { throw LaunchError(CryptoFailure("EVP_Digest")) }
        return output
    }
}
