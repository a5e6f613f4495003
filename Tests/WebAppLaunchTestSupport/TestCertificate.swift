import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway self-signed certificate, for 127.0.0.1 unless told otherwise, made with
/// openssl: its own authority (a file naming it as trusted makes it valid for its names).
/// The gate's tests serve it from an https upstream or nginx; the CLI's give it to
/// `--upstream-ca-file`.
public final class TestCertificate: Sendable {
    /// Where the certificate and its key are.
    public let directory: TemporaryDirectory
    /// The certificate, PEM.
    public var certificate: String { directory.path("cert.pem") }
    /// Its private key, PEM.
    public var key: String { directory.path("key.pem") }

    /// - Parameter subjectAltName: The names it is valid for, in openssl's form.
    public init(subjectAltName: String = "IP:127.0.0.1") async throws {
        directory = try TemporaryDirectory()
        let result = try await runSubprocess("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", directory.path("key.pem"), "-out", directory.path("cert.pem"), "-days", "1",
            "-subj", "/CN=WebAppLaunch test", "-addext", "subjectAltName=\(subjectAltName)",
        ])
        guard result.status == 0 else { throw SubprocessError(message: "openssl req failed: \(result)") }
        // Whatever the umask: the gate refuses an authority file others may change.
        guard chmod(certificate, 0o644) == 0 else { throw SubprocessError(message: "chmod \(certificate) failed") }
    }
}
