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
    let cookies: SessionCookieCodec
    let unauthenticated: UnauthenticatedPolicy
    let sessionLifetime: UInt64
    let clock: @Sendable () -> Date
    let metrics: LaunchMetrics?
    /// The verifier's audiences, whose paths take launches (``LaunchRequestKind``).
    let audiences: [RegisteredURL]

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
        self.cookies = SessionCookieCodec(sealer: sealer, audiences: verifier.audiences)
        self.unauthenticated = unauthenticated
        self.sessionLifetime = sessionLifetime
        self.clock = clock
        self.metrics = metrics
        self.audiences = verifier.audiences
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        let query: Substring? = request.uri.query.map { $0[...] }
        var form: Substring?
        let carriesLaunch: Bool
        switch kind(of: request) {
        case .misplacedLaunch:
            // Refused, not claimed: the launch stays usable where a browser sends it.
            return try reject(code: Self.misplacedLaunchCode, reason: .invalid, status: .badRequest, request: request, context: context, launch: nil)
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
        if let session = cookies.session(of: request, now: UnixSeconds.of(clock())) {
            var context = context
            context.launchSession = session
            return try await next(request, context)
        }
        context.logger.info("launch.rejected", metadata: ["app": "\(verifier.appID)", "code": "no_session"])
        metrics?.rejected(app: verifier.appID, code: "no_session")
        if let redirect = unauthenticated.redirect(for: request) { return redirect }
        return try RejectionResponse(.noSession, status: .unauthorized).response(from: request, context: context)
    }

    private func exchange(query: Substring?, form: Substring?, request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        let launch: VerifiedLaunch
        do {
            launch = try verifier.verify(query: query, form: form, now: clock())
        } catch {
            return try reject(error, request: request, context: context)
        }
        let audience = launch.audience
        if let existing = cookies.session(of: request, now: UnixSeconds.of(clock())), existing.kvnumber != launch.claims.kvnr.value, Self.isCrossSite(request, audience: audience) {
            // Login CSRF: another site must not swap the user's live session for someone else's.
            return try reject(code: SessionConflict.code, reason: .invalid, request: request, context: context, launch: launch)
        }
        let claimed: Bool
        do {
            claimed = try await replayStore.claim(
                launch.replayID,
                until: launch.replayDeadline,
                now: UnixSeconds.of(clock())
            )
        } catch {
            context.logger.error("launch.replay_store_unavailable", metadata: [
                "app": "\(verifier.appID)", "code": "\(LaunchError.Code.replayStoreUnavailable)",
                "kid": "\(launch.header.kid)", "launch": "\(launch.replayID.hex)",
                "store_error": "\((error as? ReplayStoreError)?.code.rawValue ?? String(describing: type(of: error)))",
            ])
            metrics?.rejected(app: verifier.appID, code: LaunchError.Code.replayStoreUnavailable.rawValue)
            return try RejectionResponse(.invalid, status: .serviceUnavailable).response(from: request, context: context)
        }
        guard claimed else {
            return try reject(LaunchError(.alreadyUsed, "the launch was used before"), request: request, context: context, launch: launch)
        }
        // A claim can wait on its store; the launch must still be valid when it is granted.
        let nowSeconds = UnixSeconds.of(clock())
        guard launch.isAccepted(at: nowSeconds) else {
            return try reject(LaunchError(.expired, "the token expired while its claim waited"), request: request, context: context, launch: launch)
        }
        let (expiresAt, expiryOverflow) = nowSeconds.addingReportingOverflow(sessionLifetime)
        let setCookie = try cookies.setCookie(for: launch, expiresAt: expiryOverflow ? .max : expiresAt, maxAge: sessionLifetime)
        context.logger.info("launch.accepted", metadata: [
            "app": "\(verifier.appID)", "kid": "\(launch.header.kid)", "launch": "\(launch.replayID.hex)",
            "mode": "\(launch.header.mode)",
        ])
        metrics?.accepted(app: verifier.appID, duration: ContinuousClock.now - started)
        var response = Response(status: .seeOther)
        response.headers[.location] = audience.path + (audience.query.map { "?" + $0 } ?? "")
        response.headers.append(setCookie)
        return response
    }

    private func reject(_ error: LaunchError, request: Request, context: Context, launch: VerifiedLaunch? = nil) throws -> Response {
        // A misconfigured audience is the most common setup error: its reason names the
        // expected and the presented registered URL (public, never personal data).
        let detail = error.code == .wrongAudience ? error.reason : nil
        return try reject(code: error.code.rawValue, reason: error.publicReason, request: request, context: context, launch: launch, detail: detail)
    }

    private func reject(
        code: String,
        reason: LaunchError.PublicReason,
        status: HTTPResponse.Status = .unauthorized,
        request: Request,
        context: Context,
        launch: VerifiedLaunch?,
        detail: String? = nil
    ) throws -> Response {
        var metadata: Logger.Metadata = ["app": "\(verifier.appID)", "code": "\(code)"]
        if let detail { metadata["detail"] = "\(detail)" }
        if let launch {
            metadata["kid"] = "\(launch.header.kid)"
            metadata["launch"] = "\(launch.replayID.hex)"
        }
        context.logger.notice("launch.rejected", metadata: metadata)
        metrics?.rejected(app: verifier.appID, code: code)
        return try RejectionResponse(reason, status: status).response(from: request, context: context)
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
            contentType: request.headers[.contentType], appPaths: audiences.map(\.path)
        )
    }

    /// Whether the request may have come from anywhere but the app's own origin
    /// (``RequestSite``): the login-CSRF rule of ``SessionConflict``.
    static func isCrossSite(_ request: Request, audience: RegisteredURL) -> Bool {
        RequestSite.of(request.headers, expectedOrigin: audience.origin) != .own
    }
}
