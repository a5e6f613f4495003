import Foundation
import Hummingbird
import Logging
import NIOCore
import WebAppLaunch
import WebAppRegistry

/// The web app that verifies launches and serves the page: the web-app side of the handshake.
///
/// Routes: each served app's path (GET and POST, behind ``LaunchVerificationMiddleware``),
/// `/healthz`, `/metrics` (Prometheus text) and, for development keys on loopback only, the
/// launcher console at `/` (``DevelopmentConsole``). Every response carries the security
/// headers of ``SecurityHeadersMiddleware``.
public struct WebAppServer: Sendable {
    /// The checked configuration.
    public let configuration: WebAppServerConfiguration
    /// The replay store launches are claimed in.
    public let replayStore: any ReplayStore
    /// The server's metrics.
    public let metrics: LaunchMetrics
    /// The server's logger; it never receives tokens, names, KVNRs, MACs, cookies or keys.
    public let logger: Logger
    private let renderer = PageRenderer()
    /// Each served app with its verification middleware; the app's keys are derived once, at init.
    private let endpoints: [(served: ServedApp, middleware: LaunchVerificationMiddleware<WebAppRequestContext>)]
    /// The launcher console, when permitted (``WebAppServerConfiguration/servesDevelopmentConsole``).
    private let console: DevelopmentConsole?

    /// Checks the configuration and opens the replay store.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - logger: Where the server logs.
    /// - Returns: A server ready to build its application.
    /// - Throws: ``ServerConfigurationError`` for a bad setting, ``KeyringError`` when the
    ///   keyring cannot serve an app (`app_mismatch`: an app keyring of another app),
    ///   ``ReplayStoreError`` when the store cannot be opened.
    public static func make(configuration: WebAppServerConfiguration, logger: Logger = Logger(label: "webapp-launch")) async throws -> WebAppServer {
        try configuration.validate()
        let store: any ReplayStore
        switch configuration.replayStore {
        case .memory(let capacity):
            store = InMemoryReplayStore(capacity: capacity)
        case .sqlite(let path):
            store = try await SQLiteReplayStore.open(path: path)
        case .postgres(let url):
            store = try await PostgresReplayStore.connect(url: url, logger: logger)
        }
        return try WebAppServer(configuration: configuration, replayStore: store, logger: logger)
    }

    /// Creates a server around an existing replay store (tests, embedding apps).
    /// - Parameters:
    ///   - configuration: The settings (validated by the caller).
    ///   - replayStore: The store.
    ///   - logger: Where the server logs.
    /// - Throws: ``KeyringError`` when the keyring cannot serve a configured app: an app
    ///   keyring serves its own app only (`app_mismatch`).
    public init(configuration: WebAppServerConfiguration, replayStore: any ReplayStore, logger: Logger = Logger(label: "webapp-launch")) throws(KeyringError) {
        self.configuration = configuration
        self.replayStore = replayStore
        let metrics = LaunchMetrics()
        self.metrics = metrics
        self.logger = logger
        var endpoints: [(served: ServedApp, middleware: LaunchVerificationMiddleware<WebAppRequestContext>)] = []
        for served in configuration.apps {
            let verifier = try LaunchVerifier(
                keyring: configuration.keyring,
                appID: served.app.id,
                audiences: [served.publicURL],
                policy: configuration.policy
            )
            let middleware = try LaunchVerificationMiddleware<WebAppRequestContext>(
                verifier: verifier,
                replayStore: replayStore,
                sessionLifetime: configuration.sessionLifetime,
                clock: configuration.clock,
                metrics: metrics
            )
            endpoints.append((served, middleware))
        }
        self.endpoints = endpoints
        self.console = configuration.servesDevelopmentConsole
            ? try DevelopmentConsole(keyring: configuration.keyring, registry: configuration.registry, users: configuration.demoUsers, clock: configuration.clock)
            : nil
    }

    /// Builds the router with every route and middleware.
    /// - Returns: The router.
    public func makeRouter() -> Router<WebAppRequestContext> {
        let router = Router(context: WebAppRequestContext.self)
        router.add(middleware: SecurityHeadersMiddleware())
        router.get("/healthz") { _, _ in "ok\n" }
        let store = replayStore
        let metrics = metrics
        router.get("/metrics") { _, _ -> Response in
            if let size = try? await store.count() { metrics.recordReplayStoreSize(size) }
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: metrics.exposition()))
            )
        }
        console?.addRoutes(to: router)
        for (served, middleware) in endpoints {
            let renderer = renderer
            let app = served.app
            let page: @Sendable (Request, WebAppRequestContext) async throws -> Response = { _, context in
                let session = try context.requireLaunchSession()
                return Response(
                    status: .ok,
                    headers: [.contentType: "text/html; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(string: renderer.render(session: session, app: app)))
                )
            }
            let group = router.group(RouterPath(served.publicURL.path)).add(middleware: middleware)
            group.get(use: page)
            group.post(use: page)
        }
        return router
    }

    /// Builds the Hummingbird application bound to the configured host and port.
    /// - Parameter onServerRunning: Called with the bound channel once the server listens
    ///   (its `localAddress` tells the port when port 0 was asked for).
    /// - Returns: The application; run it with `runService()` for SIGTERM handling.
    public func makeApplication(
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let (seconds, attoseconds) = configuration.idleTimeout.components
        let idleTimeout = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        return Application(
            router: makeRouter(),
            server: .http1(configuration: .init(idleTimeout: idleTimeout)),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: onServerRunning,
            logger: logger
        )
    }
}
