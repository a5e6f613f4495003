import Foundation
import HTTPTypes
import Hummingbird
import Logging
import WebAppLaunch
import WebAppRegistry

/// Verifies launches in front of a web app's page and turns them into a session.
///
/// - A request carrying `launch` (GET query, or a form POST to the app's own path) is
///   verified, its nonce claimed in the replay store, and answered with 303 See Other to the
///   clean URL plus a sealed session cookie, so the token leaves the address bar and a reload
///   works. A `launch` anywhere else (HEAD, OPTIONS, PUT, DELETE, another POST) gets 400 and
///   is not claimed (``LaunchRequestKind``, the decision every entry point shares); a form
///   too large to be a launch form is passed on unread, never refused with 413.
/// - A request with a valid session cookie gets ``LaunchRequestContext/launchSession`` set and
///   goes on to the handler, its body intact (a form the middleware read is still readable).
/// - Anything else is answered 401 with a generic reason (`invalid`, `expired`,
///   `already_used`); the precise code goes to the log. A store that cannot answer gives 503.
///
/// ```swift
/// router.group("apps/healthmagazin")
///     .add(middleware: try LaunchVerificationMiddleware(verifier: verifier, replayStore: store))
///     .get { _, context in try context.requireLaunchSession().firstName }
/// ```
public struct LaunchVerificationMiddleware<Context: LaunchRequestContext>: RouterMiddleware {
    /// The largest form body read when looking for a `launch` field (form POSTs to the app's
    /// own path only; other requests' bodies are not touched).
    public static var maximumFormBytes: Int { 32 * 1024 }

    let verifier: LaunchVerifier
    let replayStore: any ReplayStore
    /// The exchange's decisions, shared with ``LaunchFastPath``.
    public let exchange: LaunchExchange
    let unauthenticated: UnauthenticatedPolicy
    /// The verifier's audiences, whose paths take launches (``LaunchRequestKind``).
    let audiences: [RegisteredURL]
    /// Their paths, as ``LaunchRequestKind`` takes them: made once here, not per request.
    let appPaths: [String]

    /// Creates the middleware for one app.
    /// - Parameters:
    ///   - verifier: The verifier of the app behind this middleware (its audiences and app id).
    ///   - replayStore: Where nonces are claimed.
    ///   - sessionSealer: Seals the session cookie; by default the verifier's app's sealer.
    ///   - sessionLifetime: Seconds a session lasts; default 30 minutes.
    ///   - clock: The current time (injectable in tests).
    ///   - metrics: Counters and latency, or `nil`.
    ///   - unauthenticated: What a request without a session gets; by default the 401 page.
    /// - Throws: ``KeyringError/Code/appMismatch`` when `sessionSealer` seals for another app
    ///   than the verifier's: its cookies would open another app's sessions;
    ///   `ConfigurationError` (`development_keys_off_loopback`) when the verifier holds
    ///   development keys and an audience is not loopback (``DevelopmentKeyPolicy``: any
    ///   Hummingbird app embedding the middleware gets the rule `serve` and the gate have).
    public init(
        verifier: LaunchVerifier,
        replayStore: any ReplayStore,
        sessionSealer: SessionSealer? = nil,
        sessionLifetime: UInt64 = 1800,
        clock: @escaping @Sendable () -> Date = { Date() },
        metrics: LaunchMetrics? = nil,
        unauthenticated: UnauthenticatedPolicy = .rejectionPage
    ) throws {
        let sealer = sessionSealer ?? SessionSealer(verifier: verifier)
        guard sealer.appID == verifier.appID else {
            throw KeyringError(.appMismatch, "the session sealer is for `\(sealer.appID)`, the verifier for `\(verifier.appID)`")
        }
        try DevelopmentKeyPolicy.check(verifier.keyring, bindHost: nil, publicURLs: verifier.audiences)
        self.verifier = verifier
        self.replayStore = replayStore
        self.exchange = LaunchExchange(
            verifier: verifier,
            cookies: SessionCookieCodec(sealer: sealer, audiences: verifier.audiences),
            sessionLifetime: sessionLifetime,
            clock: clock,
            metrics: metrics
        )
        self.unauthenticated = unauthenticated
        self.audiences = verifier.audiences
        self.appPaths = verifier.audiences.map(\.path)
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        let query: Substring? = request.uri.query.map { $0[...] }
        var form: Substring?
        let carriesLaunch: Bool
        switch kind(of: request) {
        case .misplacedLaunch:
            // Refused, not claimed: the launch stays usable where a browser sends it.
            return exchange.reject(
                code: Self.misplacedLaunchCode, reason: .invalid, status: .badRequest, accept: request.headers[.accept],
                launch: nil, logger: context.logger
            ).response
        case .formPost:
            // The body stays on the request (read or not), so the handler can still read its
            // form; a body too large to be a launch form is passed on unread, not refused.
            if let buffer = try await FormBodyPeek.body(of: &request, upTo: Self.maximumFormBytes) {
                form = Substring(String(buffer: buffer))
            }
            carriesLaunch = LaunchParameters.carriesLaunch(query) || LaunchParameters.carriesLaunch(form)
        case .queryLaunch:
            carriesLaunch = true  // the kind found `launch` in the query: not scanned again
        case .other:
            carriesLaunch = false  // no `launch` in the query, and no form read
        }
        if carriesLaunch {
            return try await exchange(query: query, form: form, request: request, context: context)
        }
        if let session = exchange.cookies.session(of: request, now: exchange.nowSeconds) {
            var context = context
            context.launchSession = session
            return try await next(request, context)
        }
        context.logger.info("launch.rejected", metadata: ["app": "\(verifier.appID)", "code": "no_session"])
        exchange.metrics?.rejected(app: verifier.appID, code: "no_session")
        if let redirect = unauthenticated.redirect(for: request) { return redirect }
        return try RejectionResponse(.noSession, status: .unauthorized).response(from: request, context: context)
    }

    /// The exchange on Hummingbird's request path: ``LaunchExchange``'s decisions around an
    /// awaited claim in any store.
    private func exchange(query: Substring?, form: Substring?, request: Request, context: Context) async throws -> Response {
        let pending: LaunchExchange.PendingClaim
        switch exchange.begin(query: query, form: form, headers: request.headers, logger: context.logger) {
        case .answered(let answer): return answer.response
        case .claim(let claim): pending = claim
        }
        let claimed: Bool
        do {
            claimed = try await replayStore.claim(pending.launch.replayID, until: pending.launch.replayDeadline, now: exchange.nowSeconds)
        } catch {
            return exchange.storeFailed(pending, error: error, logger: context.logger).response
        }
        return try exchange.finish(pending, claimed: claimed, logger: context.logger).response
    }

    /// This app's route on the event-loop launch path (``LaunchFastPath``), when its store
    /// claims without a task (at once, or through a callback); `nil` keeps its launches on
    /// Hummingbird's path.
    /// - Parameter path: The app path the route answers (one of the audiences' paths).
    /// - Returns: The route, or `nil`.
    public func fastPathRoute(path: String) -> LaunchFastPath.Route? {
        guard let store = LaunchFastPath.Route.Store(replayStore), audiences.contains(where: { $0.path == path }) else { return nil }
        return LaunchFastPath.Route(exchange: exchange, store: store, path: path)
    }

    /// The session with which this middleware hands a request without a body on to the next
    /// handler, decided without Hummingbird (for a ``FastPathRoute`` behind this middleware):
    /// `nil` when the request is or may be a launch (any ``LaunchRequestKind`` but
    /// ``LaunchRequestKind/other``), or carries no live session. Both are left to
    /// ``handle(_:context:next:)``, which exchanges, refuses or redirects them and counts them.
    /// - Parameters:
    ///   - request: The request head.
    ///   - path: Its path.
    ///   - query: Its raw query, or `nil`.
    /// - Returns: The live session, or `nil`.
    public func passingSession(_ request: HTTPRequest, path: Substring, query: Substring?) -> LaunchSession? {
        let kind = LaunchRequestKind(
            method: request.method, path: path, query: query, contentType: request.headerFields[.contentType], appPaths: appPaths
        )
        guard kind == .other else { return nil }
        return exchange.cookies.session(in: request.headerFields, now: exchange.nowSeconds)
    }

    /// The log and metrics code of a launch sent where launches are not taken
    /// (``LaunchRequestKind/misplacedLaunch``).
    public static var misplacedLaunchCode: String { "misplaced_launch" }

    /// The one decision "is this a launch" for a request to this app (``LaunchRequestKind``).
    /// - Parameter request: The request.
    /// - Returns: Its kind.
    public func kind(of request: Request) -> LaunchRequestKind {
        LaunchRequestKind(
            method: request.method, path: Substring(request.uri.path), query: request.uri.query.map { $0[...] },
            contentType: request.headers[.contentType], appPaths: appPaths
        )
    }
}
