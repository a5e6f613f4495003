internal import COpenSSL

/// A failure inside OpenSSL, with the library's packed error code from `ERR_get_error()`.
///
/// Internal: callers see it as ``LaunchError/Code/cryptoFailure`` with the code attached,
/// never as a C type.
struct CryptoFailure: Error, Sendable, Hashable {
    /// Which operation failed, e.g. `EVP_MAC_final`.
    let operation: String
    /// OpenSSL's packed error code (0 when OpenSSL queued none).
    let openSSLCode: UInt

    /// Captures the oldest queued OpenSSL error and clears the thread's queue, so a stale
    /// error is never reported against a later operation.
    init(_ operation: String) {
        self.operation = operation
        self.openSSLCode = UInt(ERR_get_error())
        ERR_clear_error()
    }
}

extension LaunchError {
    /// Wraps an OpenSSL failure in the public error type, keeping OpenSSL's code.
    init(_ failure: CryptoFailure) {
        self.init(.cryptoFailure, "OpenSSL failed in \(failure.operation)", openSSLCode: failure.openSSLCode)
    }
}
