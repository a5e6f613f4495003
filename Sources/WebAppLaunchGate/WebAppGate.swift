import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchReload
import WebAppRegistry

/// The gate: launch verification in front of a web app written in any language, in the two
/// shapes oauth2-proxy has for sign-in.
///
/// - **Reverse proxy** (``GateConfiguration/Mode/reverseProxy(upstream:)``): launches are
///   exchanged (verify, claim once, 303, sealed session cookie) by
///   ``LaunchVerificationMiddleware``; requests with a valid session go to the upstream with
///   ``IdentityHeaders`` (``GateProxy``); without one, 401 or the configured redirect.
/// - **auth_request** (``GateConfiguration/Mode/authRequest``): nginx sends every request that
///   may carry a launch to the gate first, which exchanges or refuses it; every other request
///   asks `GET /auth` (``AuthRequestEndpoint``). ``NginxConfiguration`` writes the nginx side
///   from the same rules (`webapp-launch gate --print-nginx-config`; `Docs/nginx-auth-request.conf`).
///
/// In both shapes a request carrying `launch` is decided by ``LaunchRequestKind`` (in the
/// verification middleware) and never reaches the upstream.
///
/// ```swift
/// let gate = try WebAppGate(configuration: configuration, replayStore: store)
/// try await gate.makeApplication().runService()
/// ```
public struct WebAppGate: Sendable {
    /// The checked configuration.
    public let configuration: GateConfiguration
    /// Where launches are claimed.
    public let replayStore: any ReplayStore
    /// The client to the upstream (reverse proxy mode only).
    public let client: UpstreamClient?
    /// The reverse proxy (its session slots shared by both of its runners), with ``client``.
    let proxy: GateProxy?
    /// The gate's logger: never tokens, names, KVNRs, cookies or header values.
    public let logger: Logger
    /// The launch exchange for the app, its keys derived when the keyring loads; reloaded
    /// (SIGHUP, ``ReloadableConfiguration/reload()``) from the keyring source given at init.
    public let verification: ReloadableConfiguration<LaunchVerificationMiddleware<WebAppRequestContext>>
    /// What a reload (SIGHUP) reads again, in order: the keyring (``verification``), then an
    /// `https` upstream's trusted authorities (``UpstreamClient/trustReload``). Each keeps
    /// what is in use when its new file would not start.
    public var reloadables: [any Reloadable] {
        [verification] + [client?.trustReload].compactMap { $0 }
    }
    /// Off once shutdown begins: `/readyz` answers 503 while requests in flight drain.
    public let readiness = ReadinessSwitch()
    /// The gate's counters (launches accepted, rejected by code; the replay store's, when it
    /// reports into ``ServerMetrics/factory``), served on ``GateConfiguration/metrics``.
    public let metrics: ServerMetrics

    /// Checks the configuration and creates the upstream client.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - replayStore: The replay store (shared by every gate instance of the app).
    ///   - logger: Where the gate logs.
    ///   - metrics: Where the verification and the reloads report (give the replay store its
    ///     factory too).
    ///   - reloadingKeyring: Reads the keyring again on a reload (the same loader as at
    ///     startup: file mode, format); `nil` keeps the configuration's keyring for good.
    /// - Throws: ``ConfigurationError``.
    public init(
        configuration: GateConfiguration,
        replayStore: any ReplayStore,
        logger: Logger = Logger(label: "webapp-launch.gate"),
        metrics: ServerMetrics = ServerMetrics(),
        reloadingKeyring: (@Sendable () async throws -> Keyring)? = nil
    ) throws(ConfigurationError) {
        // An app keyring of another app is refused here (`app_mismatch`), before any client exists.
        let initial = try Self.verification(configuration: configuration, replayStore: replayStore, metrics: metrics)
        self.configuration = configuration
        self.replayStore = replayStore
        self.logger = logger
        self.metrics = metrics
        if let reloadingKeyring {
            verification = ReloadableConfiguration(name: "keyring", initial: initial, logger: logger, metricsFactory: metrics.factory) {
                let keyring = try await reloadingKeyring()
                guard keyring.isDevelopment == configuration.keyring.isDevelopment else {
                    throw ConfigurationError("the keyring changed between development and production keys: restart to switch")
                }
                var reloaded = configuration
                reloaded.keyring = keyring
                return try Self.verification(configuration: reloaded, replayStore: replayStore, metrics: metrics)
            }
        } else {
            verification = .fixed(initial, name: "keyring")
        }
        if case .reverseProxy(let upstream) = configuration.mode {
            let client: UpstreamClient
            do {
                client = try GateProxy.makeClient(configuration: configuration, upstream: upstream, logger: logger, metricsFactory: metrics.factory)
            } catch let error as ConfigurationError {
                throw error  // names the file of --upstream-ca-file and what is wrong with it
            } catch {
                throw ConfigurationError("the TLS context for the https upstream could not be created: \(error)")
            }
            self.client = client
            proxy = GateProxy(client: client, configuration: configuration, upstream: upstream, metricsFactory: metrics.factory)
        } else {
            client = nil
            proxy = nil
        }
    }

    /// The launch verification for a configuration, with every check the gate starts with:
    /// ``GateConfiguration/validate()`` (``DevelopmentKeyPolicy``, an app keyring, a key that
    /// verifies) and the verifier's (`app_mismatch`: an app keyring of another app). A
    /// reload runs exactly this on the new keyring.
    /// - Parameters:
    ///   - configuration: The settings with the keyring to use.
    ///   - replayStore: Where launches are claimed.
    ///   - metrics: Where it reports, or `nil`.
    /// - Returns: The middleware.
    /// - Throws: ``ConfigurationError``.
    public static func verification(
        configuration: GateConfiguration,
        replayStore: any ReplayStore,
        metrics: ServerMetrics? = nil
    ) throws(ConfigurationError) -> LaunchVerificationMiddleware<WebAppRequestContext> {
        try configuration.validate()
        do {
            let verifier = try LaunchVerifier(
                keyring: configuration.keyring,
                appID: configuration.appID,
                audiences: [configuration.publicURL],
                policy: configuration.policy
            )
            return try LaunchVerificationMiddleware<WebAppRequestContext>(
                verifier: verifier,
                replayStore: replayStore,
                sessionLifetime: configuration.sessionLifetime,
                clock: configuration.clock,
                metrics: metrics?.launches,
                unauthenticated: configuration.unauthenticatedPolicy
            )
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("\(error)")
        }
    }

    /// The router: the gate's own stages (readiness, launch verification with the
    /// configuration's ``GateConfiguration/unauthenticatedPolicy``), then the proxy or the
    /// auth_request endpoint.
    ///
    /// Every answer the gate makes itself carries the security headers; a proxied response
    /// goes out as the upstream sent it (``GateResponseHeadersMiddleware``).
    /// - Returns: The router.
    public func makeRouter() -> Router<WebAppRequestContext> {
        let router = Router(context: WebAppRequestContext.self)
        let strictTransportSecurity = configuration.publicURL.scheme == "https"
        let readinessEndpoint = ReadinessEndpoint<WebAppRequestContext>(store: replayStore, readiness: readiness)  // `/readyz`, never proxied
        let verifying = ReloadingLaunchMiddleware(verification)
        switch configuration.mode {
        case .reverseProxy:
            router.add(middleware: GateResponseHeadersMiddleware(strictTransportSecurity: strictTransportSecurity) {
                readinessEndpoint
                verifying
            })
            // Every path and method goes upstream: the proxy is the last middleware and never
            // calls the router's own (empty) routes.
            router.add(middleware: ProxyMiddleware(proxy: proxy!, security: securityHeaders))
        case .authRequest:
            // Nothing is proxied in this shape: every answer is the gate's own.
            router.add(middleware: securityHeaders)
            router.add(middleware: readinessEndpoint)
            router.add(middleware: verifying)
            router.add(middleware: authRequestEndpoint)
            router.add(middleware: ExchangeFallbackMiddleware(
                appPaths: [configuration.publicURL.path],
                maximumBodyBytes: configuration.maximumRequestBodyBytes,
                fallback: configuration.publicURL.path
            ))
        }
        return router
    }

    /// The requests answered on the event loop (``LaunchFastPath``): in the reverse-proxy
    /// shape, GETs with a live session on every path but `/readyz` (``ProxyFastPathRoute``);
    /// in the auth_request shape, nginx's `GET /auth` checks with a live session
    /// (``AuthRequestFastPathRoute``, the endpoint's own decision). `nil` when switched off
    /// (``GateConfiguration/answersOnEventLoop``).
    func makeFastPath() -> LaunchFastPath? {
        guard configuration.answersOnEventLoop else { return nil }
        let readiness = ReadinessEndpoint<WebAppRequestContext>.path
        switch configuration.mode {
        case .reverseProxy:
            let route = ProxyFastPathRoute(verification: verification, proxy: proxy!)
            return LaunchFastPath(securityHeaders: securityHeaders, logger: logger) { path in
                path.utf8.elementsEqual(readiness.utf8) ? nil : route
            }
        case .authRequest:
            let route = AuthRequestFastPathRoute(verification: verification, endpoint: authRequestEndpoint)
            return LaunchFastPath(securityHeaders: securityHeaders, logger: logger) { path in
                path.utf8.elementsEqual(AuthRequestEndpoint<WebAppRequestContext>.path.utf8) ? route : nil
            }
        }
    }

    /// The `/auth` endpoint of the auth_request shape, on both of its paths.
    private var authRequestEndpoint: AuthRequestEndpoint<WebAppRequestContext> {
        AuthRequestEndpoint(passAccessToken: configuration.passAccessToken, appPaths: [configuration.publicURL.path])
    }

    /// The security headers of the gate's own answers.
    private var securityHeaders: SecurityHeadersMiddleware<WebAppRequestContext> {
        SecurityHeadersMiddleware(strictTransportSecurity: configuration.publicURL.scheme == "https")
    }

    /// The Hummingbird application bound to the configured address, with the upstream client
    /// shut down after the server stops, the metrics listener when one is configured
    /// (``MetricsEndpoint``), and development keys refused on a bound address that is not
    /// loopback (``BoundAddressGuard``).
    /// - Parameters:
    ///   - services: More services to run with it (a PostgreSQL replay store).
    ///   - onServerRunning: Called with the bound channel once the gate listens.
    ///   - onMetricsServerRunning: The same for the metrics listener.
    /// - Returns: The application; `runService()` handles SIGTERM.
    public func makeApplication(
        services: [any Service] = [],
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in },
        onMetricsServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        var all = services
        if let client { all.append(UpstreamClientShutdownService(client: client)) }
        if let listener = configuration.metrics {
            all.append(MetricsEndpoint.application(
                listener: listener, metrics: metrics, idleTimeout: configuration.idleTimeout,
                onServerRunning: onMetricsServerRunning, logger: logger
            ))
        }
        let onRunning = BoundAddressGuard.install(for: configuration.keyring, in: &all, onServerRunning: onServerRunning)
        return Application(
            router: makeRouter(),
            server: .webAppLaunchHTTP1(idleTimeout: configuration.idleTimeout, launchFastPath: makeFastPath()),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            services: all,
            onServerRunning: onRunning,
            logger: logger
        )
    }
}

/// The reverse proxy as the router's last step: the upstream's answer as it came, the
/// proxy's own refusals with the gate's security headers.
struct ProxyMiddleware<Context: LaunchRequestContext>: RouterMiddleware {
    let proxy: GateProxy
    let security: SecurityHeadersMiddleware<Context>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // LaunchVerificationMiddleware only lets requests with a live session through.
        let session = try context.requireLaunchSession()
        switch await proxy.forward(request, session: session, logger: context.logger) {
        case .upstream(let response):
            return response
        case .refused(let response):
            return try await security.handle(request, context: context) { _, _ in response }
        }
    }
}

/// auth_request mode, every path but `/auth`: nginx sends here what may carry a launch (and
/// what `/auth` refused). A launch was exchanged or refused by the verification middleware
/// before this; what arrives here has a live session and no launch: a form POST to the app's
/// launch path without `launch` (in this shape the launch path is the gate's for form POSTs),
/// or a request whose session appeared between two checks. It is sent back to where it was
/// going (303), if that is a same-site path (``RedirectTarget``), else to the app's own path:
/// a request path echoed into `Location` is an open redirect when it reads `/\evil.example`.
/// A form body too large for the launch reader is read to its end first: a `launch` piece
/// anywhere in it gets 400 instead.
struct ExchangeFallbackMiddleware<Context: LaunchRequestContext>: RouterMiddleware {
    let appPaths: [String]
    let maximumBodyBytes: Int
    /// Where to send the browser when the request's own path is no safe target.
    let fallback: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        _ = try context.requireLaunchSession()
        let kind = LaunchRequestKind(
            method: request.method, path: Substring(request.uri.path), query: request.uri.query.map { $0[...] },
            contentType: request.headers[.contentType], appPaths: appPaths
        )
        if kind.mayCarryLaunchInBody {
            var scanner = LaunchPieceScanner()
            var total = 0
            for try await chunk in request.body {
                total += chunk.readableBytes
                guard total <= maximumBodyBytes else { return GateErrorResponse.make(.contentTooLarge) }
                scanner.feed(chunk.readableBytesView)
            }
            if scanner.finish() {
                context.logger.notice("launch.rejected", metadata: ["code": "\(LaunchVerificationMiddleware<Context>.misplacedLaunchCode)"])
                return GateErrorResponse.make(.badRequest)
            }
        }
        let target = request.head.path.flatMap { RedirectTarget.isSafe($0) ? $0 : nil } ?? fallback
        return Response(status: .seeOther, headers: [.location: target])
    }
}
