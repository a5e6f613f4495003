import HTTPTypes
import Hummingbird
import Logging
import WebAppRegistry

/// Refuses console requests that do not come from a loopback origin.
///
/// DNS rebinding lets a page on `evil.example` resolve its own name to 127.0.0.1 and then
/// read and post to the console as "same origin"; the browser still sends `Host:
/// evil.example`. So a console request must name a loopback host (`127.0.0.0/8`, `[::1]`,
/// `localhost`) in `Host`, and a request that carries `Origin` must carry a loopback origin
/// on the same host and port as `Host`. Anything else gets 403 before the console sees it.
struct ConsoleRequestGuard<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authority = request.head.authority, let host = Self.hostname(of: authority), RegisteredURL.isLoopback(host) else {
            context.logger.notice("console.refused", metadata: ["code": "foreign_host"])
            throw HTTPError(.forbidden, message: "the console answers only on a loopback host")
        }
        if let origin = request.headers[HTTPField.Name("Origin")!] {
            guard origin.lowercased() == "http://\(authority.lowercased())" else {
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
