import HTTPTypes
import Hummingbird
import Logging

/// Adds the security headers to every response, including errors and 404s.
///
/// `Cache-Control: no-store` keeps pages with personal data out of caches;
/// `Referrer-Policy: no-referrer` keeps URLs (a launch among them) out of other sites' logs;
/// `nosniff` stops content-type guessing; the Content-Security-Policy allows only the page's
/// own inline script and style, identified by hash, and no inline event handlers.
public struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The policy sent with every response.
    public let contentSecurityPolicy: String

    /// Creates the middleware.
    /// - Parameter contentSecurityPolicy: The CSP; defaults to the page's own policy.
    public init(contentSecurityPolicy: String = PageAssets.contentSecurityPolicy) {
        self.contentSecurityPolicy = contentSecurityPolicy
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = (try? error.response(from: request, context: context)) ?? Response(status: .internalServerError)
        } catch {
            context.logger.error("request.failed", metadata: ["error_type": "\(String(describing: type(of: error)))"])
            response = Response(status: .internalServerError)
        }
        response.headers[.cacheControl] = "no-store"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy
        return response
    }
}
