import HTTPTypes
import Hummingbird
import Logging
import WebAppLaunchMiddleware
import WebAppRegistry

/// Refuses console requests that do not come from a loopback origin.
///
/// DNS rebinding lets a page on `evil.example` resolve its own name to 127.0.0.1 and then
/// read and post to the console as "same origin"; the browser still sends `Host:
/// evil.example`. So a console request must name a loopback host (`127.0.0.0/8`, `[::1]`,
/// `localhost`) in `Host`, and come from that host and port by the same rule as login CSRF
/// (``RequestSite``: Fetch Metadata `same-origin` or `none`, no foreign `Origin`; the
/// `Origin: null` our no-referrer pages send only with Fetch Metadata vouching). Anything
/// else gets 403 before the console sees it.
struct ConsoleRequestGuard<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authority = request.head.authority, let host = Self.hostname(of: authority), RegisteredURL.isLoopback(host) else {
            context.logger.notice("console.refused", metadata: ["code": "foreign_host"])
            throw HTTPError(.forbidden, message: "the console answers only on a loopback host")
        }
        switch RequestSite.of(request.headers, expectedOrigin: "http://\(authority.lowercased())") {
        case .own:
            break
        case .crossSite:
            context.logger.notice("console.refused", metadata: ["code": "cross_site"])
            throw HTTPError(.forbidden, message: "the console accepts requests from its own page only")
        case .foreignOrigin:
            context.logger.notice("console.refused", metadata: ["code": "foreign_origin"])
            throw HTTPError(.forbidden, message: "the console accepts requests from its own page only")
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
