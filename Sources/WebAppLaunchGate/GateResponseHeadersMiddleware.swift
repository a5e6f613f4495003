import HTTPTypes
import Hummingbird
import WebAppLaunchMiddleware

/// Gives the answers the gate makes itself (303, 400, 401, 503 of its stages) the security
/// headers of ``SecurityHeadersMiddleware`` (`Cache-Control: no-store`, a strict CSP, …), and
/// leaves what its stages pass on untouched.
///
/// The web app behind the gate owns its pages' headers: a strict CSP forced onto them would
/// break every app with a script. So the middleware wraps the gate's own stages (readiness,
/// launch verification) rather than the whole chain: a response its stages made is the
/// gate's; a request they passed on went to the proxy (the next middleware), whose answer
/// comes back as the upstream sent it, and the proxy secures its own refusals itself
/// (``GateProxy/Outcome``). Nothing marks a response, and nothing is stripped afterwards.
///
/// The stages return what they were passed back unchanged (``ReadinessEndpoint`` and
/// ``LaunchVerificationMiddleware`` do): a stage that rewrote a passed-on response would
/// send it out without the gate's headers.
public struct GateResponseHeadersMiddleware<Context: RequestContext, Stages: RouterMiddleware>: RouterMiddleware
where Stages.Context == Context {
    let stages: Stages
    let security: SecurityHeadersMiddleware<Context>

    /// Creates the middleware around the gate's own stages.
    /// - Parameters:
    ///   - strictTransportSecurity: Whether the gate is served over https.
    ///   - stages: The stages whose own answers are the gate's.
    public init(
        strictTransportSecurity: Bool,
        @MiddlewareFixedTypeBuilder<Request, Response, Context> stages: () -> Stages
    ) {
        self.stages = stages()
        self.security = SecurityHeadersMiddleware(strictTransportSecurity: strictTransportSecurity)
    }

    /// Runs the stages; secures what they answered themselves and every error, and returns
    /// what came back from the request they passed on as it is.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var passedOn = false
        let response: Response
        do {
            response = try await stages.handle(request, context: context) { request, context in
                passedOn = true
                return try await next(request, context)
            }
        } catch {
            return try await security.handle(request, context: context) { _, _ in throw error }
        }
        if passedOn { return response }
        return try await security.handle(request, context: context) { _, _ in response }
    }
}
