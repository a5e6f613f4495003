internal import COpenSSL

/// The OpenSSL algorithm objects fetched once per process.
///
/// Fetching (`EVP_MAC_fetch`, `EVP_CIPHER_fetch`) walks OpenSSL's provider tables and takes
/// locks; doing it per token would cost more than the MAC itself.
final class SharedAlgorithms: @unchecked Sendable {
    // Invariant: both pointers are set once in `init` and never freed or changed; fetched
    // algorithm objects are immutable and safe to use from any thread.
    let hmac: OpaquePointer?
    let aes256GCM: OpaquePointer?
    let sha256: OpaquePointer?

    static let shared = SharedAlgorithms()

    private init() {
        hmac = webapplaunch_fetch_hmac()
        aes256GCM = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)
        sha256 = EVP_MD_fetch(nil, "SHA256", nil)
    }
}
