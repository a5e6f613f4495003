import HTTPTypes
import Logging
import NIOCore
import WebAppLaunchMiddleware
import WebAppLaunchReload

/// The reverse proxy's GETs answered on the connection's event loop (``LaunchFastPath``): a
/// request with a live session goes upstream over an idle kept-alive connection (one of the
/// same loop preferred: then the exchange never leaves its thread), and its answer is
/// written as it comes, with no task, router or middleware chain
/// (``GateProxy/relay(_:target:session:on:lease:logger:)``).
///
/// It decides nothing of its own. The session is the verification middleware's
/// (``LaunchVerificationMiddleware/passingSession(_:path:query:)``, with the keys in use when
/// the request arrives), the target rule, the session's slots and every piece of the exchange
/// are ``GateProxy``'s. Whatever it cannot take as it is goes to Hummingbird's path, which
/// answers as it always did: no live session or maybe a launch (refused, redirected, counted
/// there), a target that is refused (400), a session at its slot bound (429), and any request
/// that finds no idle connection (that path connects or waits for one; with NIO as the
/// global executor, as `webapp-launch` runs, it opens it on the request's loop).
final class ProxyFastPathRoute: FastPathRoute {
    private let verification: ReloadableConfiguration<LaunchVerificationMiddleware<WebAppRequestContext>>
    private let proxy: GateProxy

    /// - Parameters:
    ///   - verification: The gate's launch verification, reloaded on SIGHUP.
    ///   - proxy: The gate's proxy (its client and session slots shared with Hummingbird's path).
    init(verification: ReloadableConfiguration<LaunchVerificationMiddleware<WebAppRequestContext>>, proxy: GateProxy) {
        self.verification = verification
        self.proxy = proxy
    }

    func answer(_ request: HTTPRequest, target: String, path: Substring, query: Substring?, on loop: any EventLoop, logger: Logger) -> FastPathAnswer? {
        guard let session = verification.withCurrent({ $0.passingSession(request, path: path, query: query) }),
            GateProxy.forwardableTarget(target),
            let lease = proxy.slots.lease(for: GateProxy.slotKey(session)),
            let connection = proxy.client.pool.leaseIdle(preferring: loop)
        else { return nil }
        return .relayed(proxy.relay(request, target: target, session: session, on: connection, lease: lease, logger: logger))
    }
}
