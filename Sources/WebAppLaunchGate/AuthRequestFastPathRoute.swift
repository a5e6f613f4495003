import HTTPTypes
import Logging
import NIOCore
import WebAppLaunchMiddleware
import WebAppLaunchReload

/// nginx's `auth_request` check answered on the connection's event loop (``LaunchFastPath``):
/// nginx asks `GET /auth` before every request it serves, so this is the gate's hot path in
/// that shape, and it needs no task, router or middleware chain.
///
/// It decides nothing of its own. The session is the verification middleware's
/// (``LaunchVerificationMiddleware/passingSession(_:path:query:)``, with the keys of the
/// configuration in use when the request arrives), and the answer is
/// ``AuthRequestEndpoint/answer(method:headers:session:logger:)``, which the endpoint calls on
/// Hummingbird's path. A request without a live session, or one that is or may be a launch,
/// is passed on: Hummingbird's middleware refuses, redirects and counts it as before.
final class AuthRequestFastPathRoute: FastPathRoute {
    private let verification: ReloadableConfiguration<LaunchVerificationMiddleware<WebAppRequestContext>>
    private let endpoint: AuthRequestEndpoint<WebAppRequestContext>

    /// - Parameters:
    ///   - verification: The gate's launch verification, reloaded on SIGHUP.
    ///   - endpoint: The gate's `/auth` endpoint.
    init(
        verification: ReloadableConfiguration<LaunchVerificationMiddleware<WebAppRequestContext>>,
        endpoint: AuthRequestEndpoint<WebAppRequestContext>
    ) {
        self.verification = verification
        self.endpoint = endpoint
    }

    func answer(_ request: HTTPRequest, target: String, path: Substring, query: Substring?, on loop: any EventLoop, logger: Logger) -> FastPathAnswer? {
        guard let session = verification.withCurrent({ $0.passingSession(request, path: path, query: query) }) else { return nil }
        return .now(endpoint.answer(method: request.method, headers: request.headerFields, session: session, logger: logger))
    }
}
