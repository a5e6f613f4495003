import HTTPTypes
import Hummingbird
import WebAppLaunchMiddleware

/// Gives the gate's own responses (303, 401, 413, 502, 503, 504, 202 of `/auth`) the security
/// headers of ``SecurityHeadersMiddleware`` (`Cache-Control: no-store`, a strict CSP, …), and
/// leaves proxied upstream responses as the upstream sent them.
///
/// The web app behind the gate owns its pages' headers: a strict CSP forced onto them would
/// break every app with a script. The proxy marks its responses with an internal field (one
/// the upstream cannot forge, since every `X-WebApp-Launch-*` field from the upstream is
/// removed first), which this middleware strips.
public struct GateResponseHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let security: SecurityHeadersMiddleware<Context>

    /// Creates the middleware.
    /// - Parameter strictTransportSecurity: Whether the gate is served over https.
    public init(strictTransportSecurity: Bool) {
        security = SecurityHeadersMiddleware(strictTransportSecurity: strictTransportSecurity)
    }

    /// Passes proxied responses through (marker removed); adds the security headers to all others.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            return try await security.handle(request, context: context) { _, _ in throw error }
        }
        if response.headers[GateProxy.proxiedMarker] != nil {
            var proxied = response
            proxied.headers[GateProxy.proxiedMarker] = nil
            return proxied
        }
        return try await security.handle(request, context: context) { _, _ in response }
    }
}
