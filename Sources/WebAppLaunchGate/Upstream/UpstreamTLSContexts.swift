import NIOSSL
import Synchronization

/// Builds the TLS context of an `https` upstream's connections, at startup and on each reload
/// (SIGHUP), and hands back the context in use when a reload reads the same authorities.
///
/// ``UpstreamPool`` retires a kept connection whose context a reload replaced: it was
/// authenticated under authorities that may no longer be trusted. A SIGHUP that changed the
/// keyring but not `--upstream-ca-file` must not cost every kept upstream connection a new
/// handshake, so the context is replaced only when the file's certificates differ (compared
/// as DER, so a file rewritten with other comments or line breaks keeps the connections).
///
/// The machine's store (``UpstreamTrust/system``) gets a new context on every reload: the
/// store's files can change (a `ca-certificates` update removing an authority) and nothing
/// here can tell that cheaply, so its connections are retired as before.
final class UpstreamTLSContexts: Sendable {
    private let trust: UpstreamTrust
    /// The context last built for a file of authorities, and the certificates it trusts.
    private let last: Mutex<(roots: [NIOSSLCertificate], context: NIOSSLContext)?>

    init(trust: UpstreamTrust) {
        self.trust = trust
        self.last = Mutex(nil)
    }

    /// The context for the authorities the trust names now: the last one when its
    /// certificates are the same, a new one otherwise.
    /// - Throws: ``ConfigurationError`` from ``UpstreamTrust/tlsConfiguration()`` (the file's
    ///   name and what is wrong with it), or NIOSSL's error building the context.
    func current() throws -> NIOSSLContext {
        let configuration = try trust.tlsConfiguration()
        guard case .certificates(let roots) = configuration.trustRoots else {
            return try NIOSSLContext(configuration: configuration)
        }
        if let kept = last.withLock({ $0 }), kept.roots == roots {
            return kept.context
        }
        let context = try NIOSSLContext(configuration: configuration)
        last.withLock { $0 = (roots, context) }
        return context
    }
}
