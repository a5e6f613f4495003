import HTTPTypes
import Hummingbird
import Logging

/// Adds the security headers to every response, including errors and 404s.
///
/// `Cache-Control: no-store` keeps pages with personal data out of caches;
/// `Referrer-Policy: no-referrer` keeps URLs (a launch among them) out of other sites' logs;
/// `nosniff` stops content-type guessing; the Content-Security-Policy allows only the inline
/// script and style the application names by hash, and no inline event handlers;
/// `Strict-Transport-Security` is added for apps served over https.
///
/// Errors thrown further in are not turned into responses here: they are rethrown with the
/// headers attached (as Hummingbird's own middleware does), so the framework's error
/// handling, and any middleware outside this one, still sees the error.
public struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The Content-Security-Policy sent with every response.
    public let contentSecurityPolicy: String
    /// Whether `Strict-Transport-Security` is sent (only meaningful over https).
    public let strictTransportSecurity: Bool

    /// The policy when the application names none: nothing may load but the rejection page's
    /// style and its empty `data:,` icon (which keeps browsers from asking for /favicon.ico;
    /// blocked, Chrome reports a CSP violation on every rejection page).
    public static var defaultContentSecurityPolicy: String {
        "default-src 'none'; style-src \(RejectionPage.styleHashSource); img-src data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    }

    /// Creates the middleware.
    /// - Parameters:
    ///   - contentSecurityPolicy: The CSP; by default ``defaultContentSecurityPolicy``.
    ///   - strictTransportSecurity: Send HSTS (one year); pass `true` when the app's public URL is https.
    public init(contentSecurityPolicy: String? = nil, strictTransportSecurity: Bool = false) {
        self.contentSecurityPolicy = contentSecurityPolicy ?? Self.defaultContentSecurityPolicy
        self.strictTransportSecurity = strictTransportSecurity
        headers = Self.headers(contentSecurityPolicy: self.contentSecurityPolicy, strictTransportSecurity: strictTransportSecurity)
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            var response = try await next(request, context)
            // Whole fields, checked once in init: setting a String value would validate it
            // again on every response (the policy alone is over a hundred bytes).
            for field in headers { response.headers[fields: field.name] = [field] }
            return response
        } catch {
            if !(error is any HTTPResponseError) {
                context.logger.error("request.failed", metadata: ["error_type": "\(String(describing: type(of: error)))"])
            }
            throw HeaderAddingHTTPError(originalError: error, additionalHeaders: headers)
        }
    }

    /// The fields every response gets, built and validated once.
    let headers: HTTPFields

    /// Builds the fields every response gets, for ``headers``.
    static func headers(contentSecurityPolicy: String, strictTransportSecurity: Bool) -> HTTPFields {
        var fields = HTTPFields()
        fields[.cacheControl] = "no-store"
        fields[Self.referrerPolicy] = "no-referrer"
        fields[Self.contentTypeOptions] = "nosniff"
        fields[Self.contentSecurityPolicyName] = contentSecurityPolicy
        if strictTransportSecurity {
            fields[Self.strictTransportSecurityName] = "max-age=31536000"
        }
        return fields
    }

    private static var referrerPolicy: HTTPField.Name { HTTPField.Name("Referrer-Policy")! }
    private static var contentTypeOptions: HTTPField.Name { HTTPField.Name("X-Content-Type-Options")! }
    private static var contentSecurityPolicyName: HTTPField.Name { HTTPField.Name("Content-Security-Policy")! }
    private static var strictTransportSecurityName: HTTPField.Name { HTTPField.Name("Strict-Transport-Security")! }
}
