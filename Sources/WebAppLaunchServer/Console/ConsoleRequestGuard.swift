import HTTPTypes
import Hummingbird
import Logging
import WebAppRegistry

/// Refuses console requests that do not come from a loopback origin.
///
/// DNS rebinding lets a page on `evil.example` resolve its own name to 127.0.0.1 and then
/// read and post to the console as "same origin"; the browser still sends `Host:
/// evil.example`. So a console request must name a loopback host (`127.0.0.0/8`, `[::1]`,
/// `localhost`) in `Host`; a request the browser marks with Fetch Metadata must be
/// `same-origin` or `none`; and a request that carries an `Origin` must carry the origin of
/// that same host and port. (Our own pages send `Referrer-Policy: no-referrer`, under which
/// browsers send `Origin: null` on form posts, so `null` is left to Fetch Metadata and the
/// CSRF token.) Anything else gets 403 before the console sees it.
struct ConsoleRequestGuard<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authority = request.head.authority, let host = Self.hostname(of: authority), RegisteredURL.isLoopback(host) else {
            context.logger.notice("console.refused", metadata: ["code": "foreign_host"])
            throw HTTPError(.forbidden, message: "the console answers only on a loopback host")
        }
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!]?.lowercased() {
            guard site == "same-origin" || site == "none" else {
                context.logger.notice("console.refused", metadata: ["code": "cross_site"])
                throw HTTPError(.forbidden, message: "the console accepts requests from its own page only")
            }
        }
        if let origin = request.headers[HTTPField.Name("Origin")!]?.lowercased(), origin != "null" {
            guard origin == "http://\(authority.lowercased())" else {
                context.logger.notice("console.refused", metadata: ["code": "foreign_origin"])
                throw HTTPError(.forbidden, message: "the console accepts requests from its own page only")
            }
        }
        return try await next(request, context)
    }

    /// The host of a `Host` value: `127.0.0.1:8080` → `127.0.0.1`, `[::1]:8080` → `::1`.
    static func hostname(of authority: String) -> String? {
        let lowered = authority.lowercased()
        if lowered.hasPrefix("[") {
            guard let end = lowered.firstIndex(of: "]") else { return nil }
            return String(lowered[lowered.index(after: lowered.startIndex)..<end])
        }
        return String(lowered.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }
}
