import NIOSSL
import WebAppRegistry

/// Who vouches for an `https` upstream: the certificate authorities the gate checks the
/// upstream's certificate against, before a request (and the identity headers it carries)
/// goes out.
///
/// Either way the check is complete: the chain must lead to a trusted root and the
/// certificate must name the upstream's host (its address, for an address), TLS 1.2 at
/// least. A connection that fails it is closed before a byte of the request is sent, and
/// the client gets 502: the gate never sends a user's identity to a server it could not
/// authenticate.
public enum UpstreamTrust: Sendable, Hashable {
    /// The machine's trust store (on Debian, the `ca-certificates` bundle): an upstream with
    /// a certificate from a public authority.
    case system
    /// Only the certificates of this PEM file (`--upstream-ca-file`), in place of the
    /// machine's store: an app inside the insurer's network, certified by its own
    /// authority, is reachable without trusting that authority machine-wide, and no public
    /// authority can vouch for a server posing as the app.
    case certificateAuthorities(pemFile: String)

    /// The TLS settings of the gate's connections to the upstream.
    ///
    /// The file is read here: when the gate starts, where a file that cannot be read, holds
    /// no certificate or may be changed by group or others (who could then choose whom the
    /// gate trusts) stops the gate with a clear error instead of failing every request later,
    /// and on each reload (SIGHUP), where such a file keeps the authorities in use.
    /// - Returns: The client configuration: full verification against these roots.
    /// - Throws: ``ConfigurationError`` naming the file and what is wrong with it.
    public func tlsConfiguration() throws(ConfigurationError) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        tls.minimumTLSVersion = .tlsv12
        switch self {
        case .system:
            tls.trustRoots = .default
        case .certificateAuthorities(let path):
            let file: RegularFileContents
            do {
                file = try RegularFileContents(atPath: path)
            } catch {
                throw ConfigurationError("--upstream-ca-file \(path): \(error.reason)")
            }
            // Whoever may change the file chooses whom the gate sends identities to.
            guard !file.isWritableByOthers else {
                throw ConfigurationError(
                    "--upstream-ca-file \(path): writable by group or others (mode \(String(file.permissions, radix: 8))); run chmod go-w"
                )
            }
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMBytes(Array(file.data))
            } catch {
                throw ConfigurationError("--upstream-ca-file \(path): not a readable PEM file of certificates (\(error))")
            }
            guard !certificates.isEmpty else {
                throw ConfigurationError("--upstream-ca-file \(path): holds no certificate")
            }
            tls.trustRoots = .certificates(certificates)
        }
        return tls
    }
}
