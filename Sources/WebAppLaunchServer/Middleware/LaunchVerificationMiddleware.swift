import Foundation
import Hummingbird
import Logging
import WebAppLaunch
import WebAppRegistry

/// Verifies launches in front of a web app's page and turns them into a session.
///
/// - A request carrying `launch` (GET query or POST form) is verified, its nonce claimed in
///   the replay store, and answered with 303 See Other to the clean URL plus a sealed session
///   cookie, so the token leaves the address bar and a reload works.
/// - A request with a valid session cookie gets ``LaunchRequestContext/launchSession`` set and
///   goes on to the handler.
/// - Anything else is answered 401 with a generic reason (`invalid`, `expired`,
///   `already_used`); the precise code goes to the log. A store that cannot answer gives 503.
///
/// ```swift
/// router.group("apps/healthmagazin")
///     .add(middleware: try LaunchVerificationMiddleware(verifier: verifier, replayStore: store))
///     .get { _, context in try context.requireLaunchSession().firstName }
/// ```
public struct LaunchVerificationMiddleware<Context: LaunchRequestContext>: RouterMiddleware {
    /// The name of the session cookie.
    public static var cookieName: String { "webapp_launch_session" }
    /// The largest POST body read when looking for a `launch` form field.
    public static var maximumFormBytes: Int { 32 * 1024 }

    let verifier: LaunchVerifier
    let replayStore: any ReplayStore
    let cookies: SessionCookieCodec
    let sessionLifetime: UInt64
    let clock: @Sendable () -> Date
    let metrics: LaunchMetrics?
    let audience: RegisteredURL

    /// Creates the middleware for one app.
    /// - Parameters:
    ///   - verifier: The verifier of the app behind this middleware (its audience and app id).
    ///   - replayStore: Where nonces are claimed.
    ///   - sessionSealer: Seals the session cookie; by default the verifier's app's sealer.
    ///   - sessionLifetime: Seconds a session lasts; default 30 minutes.
    ///   - clock: The current time (injectable in tests).
    ///   - metrics: Counters and latency, or `nil`.
    /// - Throws: ``KeyringError/Code/appMismatch`` when `sessionSealer` seals for another app
    ///   than the verifier's: its cookies would open another app's sessions.
    public init(
        verifier: LaunchVerifier,
        replayStore: any ReplayStore,
        sessionSealer: SessionSealer? = nil,
        sessionLifetime: UInt64 = 1800,
        clock: @escaping @Sendable () -> Date = { Date() },
        metrics: LaunchMetrics? = nil
    ) throws(KeyringError) {
        let sealer = sessionSealer ?? SessionSealer(verifier: verifier)
        guard sealer.appID == verifier.appID else {
            throw KeyringError(.appMismatch, "the session sealer is for `\(sealer.appID)`, the verifier for `\(verifier.appID)`")
        }
        self.verifier = verifier
        self.replayStore = replayStore
        self.cookies = SessionCookieCodec(sealer: sealer)
        self.sessionLifetime = sessionLifetime
        self.clock = clock
        self.metrics = metrics
        self.audience = verifier.audiences[0]
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let query: Substring? = request.uri.query.map { $0[...] }
        let form = try await formBody(of: request)
        if Self.carriesLaunch(query) || Self.carriesLaunch(form) {
            return try await exchange(query: query, form: form, request: request, context: context)
        }
        let now = UnixSeconds.of(clock())
        if let value = request.cookies[Self.cookieName]?.value,
           let session = cookies.open(value[...], now: now) {
            var context = context
            context.launchSession = session
            return try await next(request, context)
        }
        context.logger.info("launch.rejected", metadata: ["app": "\(verifier.appID)", "code": "no_session"])
        metrics?.rejected(app: verifier.appID, code: "no_session")
        return RejectionResponse.make(.invalid, status: .unauthorized, for: request)
    }

    private func exchange(query: Substring?, form: Substring?, request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        let now = clock()
        let launch: VerifiedLaunch
        do {
            launch = try verifier.verify(query: query, form: form, now: now)
        } catch {
            return reject(error, request: request, context: context)
        }
        let nowSeconds = UnixSeconds.of(now)
        let claimed: Bool
        do {
            claimed = try await replayStore.claim(launch.replayID, until: launch.replayDeadline, now: nowSeconds)
        } catch {
            context.logger.error("launch.replay_store_unavailable", metadata: [
                "app": "\(verifier.appID)", "code": "\(LaunchError.Code.replayStoreUnavailable)",
                "kid": "\(launch.header.kid)", "launch": "\(launch.replayID.hex)",
                "store_error": "\(String(describing: type(of: error)))",
            ])
            metrics?.rejected(app: verifier.appID, code: LaunchError.Code.replayStoreUnavailable.rawValue)
            return RejectionResponse.make(.invalid, status: .serviceUnavailable, for: request)
        }
        guard claimed else {
            return reject(LaunchError(.alreadyUsed, "the launch was used before"), request: request, context: context, launch: launch)
        }
        var session = LaunchSession(launch: launch, expiresAt: nowSeconds + sessionLifetime)
        var value = try cookies.seal(session)
        if value.utf8.count > SessionCookieCodec.maximumCookieBytes {
            session = LaunchSession(launch: launch, expiresAt: nowSeconds + sessionLifetime, includeAccessToken: false)
            value = try cookies.seal(session)
        }
        context.logger.info("launch.accepted", metadata: [
            "app": "\(verifier.appID)", "kid": "\(launch.header.kid)", "launch": "\(launch.replayID.hex)",
            "mode": "\(launch.header.mode)",
        ])
        metrics?.accepted(app: verifier.appID, duration: ContinuousClock.now - started)
        var response = Response(status: .seeOther)
        response.headers[.location] = cleanLocation
        response.setCookie(Cookie(
            name: Self.cookieName,
            value: value,
            maxAge: Int(sessionLifetime),
            path: audience.path,
            secure: audience.scheme == "https",
            httpOnly: true,
            sameSite: .lax
        ))
        return response
    }

    private func reject(_ error: LaunchError, request: Request, context: Context, launch: VerifiedLaunch? = nil) -> Response {
        var metadata: Logger.Metadata = ["app": "\(verifier.appID)", "code": "\(error.code)"]
        if let launch {
            metadata["kid"] = "\(launch.header.kid)"
            metadata["launch"] = "\(launch.replayID.hex)"
        }
        context.logger.notice("launch.rejected", metadata: metadata)
        metrics?.rejected(app: verifier.appID, code: error.code.rawValue)
        return RejectionResponse.make(error.publicReason, status: .unauthorized, for: request)
    }

    /// The page's URL without `launch`: the registered path and query.
    private var cleanLocation: String {
        audience.path + (audience.query.map { "?" + $0 } ?? "")
    }

    /// Whether any `&`-separated piece names `launch`, compared byte for byte as
    /// ``LaunchParameters`` does (a Character-wise split would merge `&` with a following
    /// combining mark).
    private static func carriesLaunch(_ query: Substring?) -> Bool {
        guard let query else { return false }
        let name = Array("launch".utf8)
        return query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).contains { piece in
            piece.starts(with: name) && (piece.count == name.count || piece[piece.index(piece.startIndex, offsetBy: name.count)] == UInt8(ascii: "="))
        }
    }

    /// The raw form body of a POST, when it is `application/x-www-form-urlencoded`.
    private func formBody(of request: Request) async throws -> Substring? {
        guard request.method == .post else { return nil }
        guard let contentType = request.headers[.contentType],
              contentType.lowercased().hasPrefix("application/x-www-form-urlencoded")
        else { return nil }
        let buffer = try await request.body.collect(upTo: Self.maximumFormBytes)
        return Substring(String(buffer: buffer))
    }
}
