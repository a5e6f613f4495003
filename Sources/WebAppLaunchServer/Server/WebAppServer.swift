import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import WebAppLaunch
import WebAppLaunchLauncher
import WebAppLaunchMiddleware
import WebAppLaunchPostgres
import WebAppLaunchReload
import WebAppLaunchSQLite
import WebAppRegistry

/// The sample web app that verifies launches and serves the page: the web-app side of the
/// handshake, built from ``LaunchVerificationMiddleware`` as any Hummingbird app would be.
///
/// Routes on the public listener: each served app's path (GET and POST, behind the
/// middleware), `/healthz`, `/readyz` (``ReadinessEndpoint``: whether the replay store can
/// claim) and, for development keys on loopback only, the launcher console
/// at `/` (``DevelopmentConsole``). Every response carries the security headers of
/// ``SecurityHeadersMiddleware``. Metrics are served on a listener of their own
/// (``WebAppServerConfiguration/metrics``), never on the public one.
public struct WebAppServer: Sendable {
    /// The checked configuration.
    public let configuration: WebAppServerConfiguration
    /// The replay store launches are claimed in.
    public let replayStore: any ReplayStore
    /// The server's metrics.
    public let metrics: ServerMetrics
    /// The server's logger; it never receives tokens, names, KVNRs, MACs, cookies or keys.
    public let logger: Logger
    /// Services the replay store needs running (the PostgreSQL pool and sweeper; the SQLite
    /// file's closing on shutdown).
    let storeServices: [any Service]
    private let renderer: PageRenderer
    /// Each served app with its verification middleware, the keys derived when the keyring
    /// loads; reloaded (SIGHUP, ``ReloadableConfiguration/reload()``) from the source given at
    /// init, with every check of startup (``ServedVerification/reloadedConfiguration(_:keyring:registry:)``).
    public let verification: ReloadableConfiguration<ServedVerification>
    /// Off once shutdown begins: `/readyz` answers 503 while requests in flight drain.
    public let readiness = ReadinessSwitch()
    /// The launcher console, when permitted (``WebAppServerConfiguration/servesDevelopmentConsole``).
    private let console: DevelopmentConsole?
    /// The development launcher API (`/v1/…`) the console asks, served beside it.
    private let launcher: LauncherService?

    /// Checks the configuration and opens the replay store.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - logger: Where the server logs.
    ///   - reloading: Reads the keyring and registry again on a reload (the loaders of
    ///     startup); `nil` keeps the configuration's for good.
    /// - Returns: A server ready to build its application.
    /// - Throws: ``ConfigurationError`` for a bad setting, `KeyringError` when the
    ///   keyring cannot serve an app (`app_mismatch`: an app keyring of another app),
    ///   ``ReplayStoreError`` when the store cannot be opened.
    public static func make(
        configuration: WebAppServerConfiguration,
        logger: Logger = Logger(label: "webapp-launch"),
        reloading: ServedVerification.Source? = nil
    ) async throws -> WebAppServer {
        try configuration.validate()
        let metrics = ServerMetrics()
        switch configuration.replayStore {
        case .memory(let capacity):
            let store = InMemoryReplayStore(capacity: capacity, metricsFactory: metrics.factory)
            return try WebAppServer(configuration: configuration, replayStore: store, metrics: metrics, logger: logger, reloading: reloading)
        case .sqlite(let path):
            let store = try await SQLiteReplayStore.open(path: path, metricsFactory: metrics.factory)
            do {
                return try WebAppServer(configuration: configuration, replayStore: store, services: [store], metrics: metrics, logger: logger, reloading: reloading)
            } catch {
                try? await store.close()  // the file must be closed before the store goes away
                throw error
            }
        case .postgres(let url):
            var storeConfiguration = PostgresReplayStore.Configuration(url: url)
            storeConfiguration.allowsAsynchronousCommit = configuration.replayAllowsAsynchronousCommit
            let store = try PostgresReplayStore(
                configuration: storeConfiguration,
                logger: logger,
                clock: configuration.clock,
                metricsFactory: metrics.factory
            )
            return try WebAppServer(configuration: configuration, replayStore: store, services: [store], metrics: metrics, logger: logger, reloading: reloading)
        }
    }

    /// Creates a server around an existing replay store (tests, embedding apps).
    /// - Parameters:
    ///   - configuration: The settings (validated by the caller).
    ///   - replayStore: The store.
    ///   - services: Services the store needs running (a ``PostgresReplayStore`` is one).
    ///   - metrics: Where the middleware and store report.
    ///   - logger: Where the server logs.
    ///   - reloading: Reads the keyring and registry again on a reload; `nil` keeps the
    ///     configuration's for good.
    /// - Throws: `KeyringError` when the keyring cannot serve a configured app: an app
    ///   keyring serves its own app only (`app_mismatch`).
    public init(
        configuration: WebAppServerConfiguration,
        replayStore: any ReplayStore,
        services: [any Service] = [],
        metrics: ServerMetrics = ServerMetrics(),
        logger: Logger = Logger(label: "webapp-launch"),
        reloading: ServedVerification.Source? = nil
    ) throws {
        self.configuration = configuration
        self.replayStore = replayStore
        self.storeServices = services
        self.metrics = metrics
        self.logger = logger
        self.renderer = PageRenderer(articleDeepLink: configuration.articleDeepLink)
        let initial = try ServedVerification.make(configuration: configuration, replayStore: replayStore, metrics: metrics)
        if let reloading {
            verification = ReloadableConfiguration(
                name: "keyring+registry", initial: initial, logger: logger, metricsFactory: metrics.factory
            ) {
                let (keyring, registry) = try await reloading()
                let reloaded = try ServedVerification.reloadedConfiguration(configuration, keyring: keyring, registry: registry)
                return try ServedVerification.make(configuration: reloaded, replayStore: replayStore, metrics: metrics)
            }
        } else {
            verification = .fixed(initial, name: "keyring+registry")
        }
        if configuration.servesDevelopmentConsole {
            let launcher = try DevelopmentLauncher.service(configuration: configuration, logger: logger)
            self.launcher = launcher
            self.console = try DevelopmentConsole(configuration: configuration, launcher: launcher)
        } else {
            self.launcher = nil
            self.console = nil
        }
    }

    /// Builds the public router with every route and middleware.
    /// - Returns: The router.
    public func makeRouter() -> Router<WebAppRequestContext> {
        let router = Router(context: WebAppRequestContext.self)
        if let console {  // outermost: the console pages' form-action also names the registered apps' origins
            router.add(middleware: ConsoleContentSecurityPolicyMiddleware<WebAppRequestContext>(registry: console.registry))
        }
        router.add(middleware: securityHeaders)
        router.get("/healthz") { _, _ in "ok\n" }
        router.add(middleware: ReadinessEndpoint(store: replayStore, readiness: readiness))
        if let launcher {
            // Development only: the launcher API beside the console, with the demo users'
            // tokens vouched for in process; the console asks it as the app asks its backend.
            LauncherRouter.addRoutes(to: router, service: launcher, clock: configuration.clock)
        }
        console?.addRoutes(to: router)
        let verification = verification
        // The served paths are fixed at startup (a reload refuses to change them); each
        // request takes the keys and registry entry of the configuration in use when it arrives.
        for (index, served) in verification.current.endpoints.map(\.served).enumerated() {
            let renderer = renderer
            let page: @Sendable (Request, WebAppRequestContext) async throws -> HTMLResponse = { _, context in
                let app = verification.current.endpoints[index].served.app
                return HTMLResponse(renderer.render(session: try context.requireLaunchSession(), app: app))
            }
            let group = router.group(RouterPath(served.publicURL.path))
                .add(middleware: ReloadingLaunchMiddleware(verification) { $0.endpoints[index].middleware })
            group.get(use: page)
            group.post(use: page)
        }
        return router
    }

    /// The security headers of every response of the public listener, on both paths a
    /// launch can take.
    private var securityHeaders: SecurityHeadersMiddleware<WebAppRequestContext> {
        SecurityHeadersMiddleware(contentSecurityPolicy: PageAssets.contentSecurityPolicy, strictTransportSecurity: configuration.servesHTTPS)
    }

    /// The launches the public listener answers on the event loop (``LaunchFastPath``):
    /// each served app's path, with the middleware of the configuration in use when the
    /// request arrives, when the store claims without a task (at once, or through a
    /// callback: ``LaunchFastPath/Route/Store``); `nil` when switched off
    /// (``WebAppServerConfiguration/answersLaunchesOnEventLoop``) or for a store that only
    /// waits in a task (SQLite).
    func makeLaunchFastPath() -> LaunchFastPath? {
        guard configuration.answersLaunchesOnEventLoop, LaunchFastPath.Route.Store(replayStore) != nil else { return nil }
        let verification = verification
        return LaunchFastPath(securityHeaders: securityHeaders, logger: logger) { path in
            verification.withCurrent { $0.fastPathRoute(path: path) }
        }
    }

    /// Builds the metrics router: `GET /metrics` in Prometheus text, for the metrics listener only.
    /// - Returns: The router (``MetricsEndpoint/makeRouter(_:)``).
    public func makeMetricsRouter() -> Router<BasicRequestContext> {
        MetricsEndpoint.makeRouter(metrics)
    }

    /// Builds the Hummingbird application bound to the configured host and port, with the
    /// metrics listener and the replay store's services in its service group.
    /// - Parameters:
    ///   - onServerRunning: Called with the bound channel once the server listens
    ///     (its `localAddress` tells the port when port 0 was asked for).
    ///   - onMetricsServerRunning: The same for the metrics listener.
    /// - Returns: The application; run it with `runService()` for SIGTERM handling.
    public func makeApplication(
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in },
        onMetricsServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        var services: [any Service] = storeServices
        if let listener = configuration.metrics {
            services.append(MetricsEndpoint.application(
                listener: listener, metrics: metrics, idleTimeout: configuration.idleTimeout,
                onServerRunning: onMetricsServerRunning, logger: logger
            ))
        }
        let onRunning = BoundAddressGuard.install(for: configuration.keyring, in: &services, onServerRunning: onServerRunning)
        return Application(
            router: makeRouter(),
            server: .webAppLaunchHTTP1(idleTimeout: configuration.idleTimeout, launchFastPath: makeLaunchFastPath()),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            services: services,
            onServerRunning: onRunning,
            logger: logger
        )
    }
}
