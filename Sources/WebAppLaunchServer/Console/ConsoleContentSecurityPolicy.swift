import Foundation
import HTTPTypes
import Hummingbird
import WebAppRegistry

/// The console pages' Content-Security-Policy: the page policy with `form-action` widened to
/// the registered apps' origins, and nothing else changed.
///
/// "Open" posts the console form to the console, which answers 303 to the app's launch URL.
/// Browsers apply `form-action` to every redirect of a form submission, so with
/// `form-action 'self'` a launch into an app on another origin (an app behind nginx and the
/// gate, say) is blocked. The console's pages therefore allow `'self'` plus the origin of each
/// registered app, exactly as ``RegisteredURL/origin`` serialises it (lower-case scheme and
/// host, default port dropped), each checked again to be a plain CSP host-source. Never a
/// wildcard, never a path; an origin CSP cannot name exactly (an IPv6 literal) is left out, so
/// a launch there stays blocked rather than the policy being loosened. Other routes keep
/// ``PageAssets/contentSecurityPolicy``.
enum ConsoleContentSecurityPolicy {
    /// The console routes that render the console form (the page and its refusals).
    static let consolePaths: Set<String> = ["/", "/console/launch", "/console/plugin"]

    /// `'self'` followed by each registered app's origin, once, in registry order.
    static func formActionSources(for registry: Registry) -> [String] {
        var sources = ["'self'"]
        for app in registry.apps {
            let origin = app.url.origin
            if isExactHostSource(origin) && !sources.contains(origin) { sources.append(origin) }
        }
        return sources
    }

    /// ``PageAssets/contentSecurityPolicy`` with its `form-action` directive replaced.
    static func policy(for registry: Registry) -> String {
        let formAction = "form-action " + formActionSources(for: registry).joined(separator: " ")
        return PageAssets.contentSecurityPolicy
            .components(separatedBy: "; ")
            .map { $0.hasPrefix("form-action ") ? formAction : $0 }
            .joined(separator: "; ")
    }

    /// `http(s)://` + a host of letters, digits, `-` and `.` (no leading or trailing dot) +
    /// an optional `:port`: a CSP host-source that matches exactly one origin.
    static func isExactHostSource(_ origin: String) -> Bool {
        let rest: Substring
        if origin.hasPrefix("https://") { rest = origin.dropFirst(8) }
        else if origin.hasPrefix("http://") { rest = origin.dropFirst(7) }
        else { return false }
        let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let host = parts[0]
        let hostBytes = Set("abcdefghijklmnopqrstuvwxyz0123456789-.".utf8)
        guard !host.isEmpty, !host.hasPrefix("."), !host.hasSuffix("."), host.utf8.allSatisfy(hostBytes.contains) else {
            return false
        }
        if parts.count == 2 {
            let port = parts[1]
            guard !port.isEmpty, port.count <= 5, port.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        }
        return true
    }
}

/// Sets the console pages' policy (``ConsoleContentSecurityPolicy``) on the console's
/// responses. It sits outside ``SecurityHeadersMiddleware``, which sets the page policy on
/// every response, so that for the console's paths this one has the last word; errors pass
/// through untouched and keep the strict policy.
struct ConsoleContentSecurityPolicyMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: String

    init(registry: Registry) {
        policy = ConsoleContentSecurityPolicy.policy(for: registry)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if ConsoleContentSecurityPolicy.consolePaths.contains(request.uri.path) {
            response.headers[Self.contentSecurityPolicyName] = policy
        }
        return response
    }

    private static var contentSecurityPolicyName: HTTPField.Name { HTTPField.Name("Content-Security-Policy")! }
}
