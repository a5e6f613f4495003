import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchReload

/// The launcher service as an application, beside `WebAppGate` and the sample server: it
/// builds the signer, the identity provider and the token exchange from a
/// ``LauncherConfiguration``, owns the HTTP client they share, and shuts that client down
/// through the service group once the server has stopped.
///
/// ```swift
/// let launcher = try LauncherApplication(configuration: configuration)
/// try await launcher.makeApplication().runService()
/// ```
public struct LauncherApplication: Sendable {
    /// The configuration it was made from.
    public let configuration: LauncherConfiguration
    /// The launcher behind the routes.
    public let service: LauncherService
    /// The client to the identity provider (and token endpoint): owned here, shut down by the
    /// service group.
    public let httpClient: HTTPClient
    /// The HTTP layer's logger.
    public let logger: Logger
    /// Whether the launcher takes work: `/readyz` is 503 once shutdown has begun
    /// (``ReadinessDrainService``) or while the identity provider cannot confirm tokens.
    public let readiness: ReadinessSwitch
    /// The launcher's counters (``LauncherMetrics``), served on ``LauncherConfiguration/metrics``.
    public let metrics: ServerMetrics

    /// Builds the launcher. Everything that can refuse the configuration runs before the HTTP
    /// client exists (a client must be shut down before it is released).
    /// - Parameters:
    ///   - configuration: The checked settings.
    ///   - minting: The signer and catalogue, reloadable (SIGHUP, a CMS); `nil` mints with the
    ///     configuration's keyring and registry for the process's life.
    ///   - readiness: The process's shutdown switch.
    ///   - metrics: Where the launcher counts (give `minting` its factory too, so that its
    ///     reloads are served beside the launches).
    ///   - logger: Where the HTTP layer logs.
    /// - Throws: ``KeyringError/Code/notLauncherKeyring`` for an app keyring.
    public init(
        configuration: LauncherConfiguration,
        minting: ReloadableConfiguration<MintingConfiguration>? = nil,
        readiness: ReadinessSwitch = ReadinessSwitch(),
        metrics: ServerMetrics = ServerMetrics(),
        logger: Logger = Logger(label: "webapp-launch.launcher.http")
    ) throws(KeyringError) {
        let signer = try LaunchSigner(keyring: configuration.keyring, registry: configuration.registry)
        let minting = minting ?? .fixed(MintingConfiguration(signer: signer), name: "keyring+registry")
        let timeout = configuration.providerTimeout
        let httpClient = IdentityProviderHTTPClient.make(readTimeout: timeout)
        let provider: any IdentityProvider = switch configuration.tokenConfirmation {
        case .introspection(let endpoint, let clientID, let clientSecret):
            IntrospectionProvider(
                endpoint: endpoint, clientID: clientID, clientSecret: clientSecret,
                policy: configuration.policy, httpClient: httpClient, timeout: timeout
            )
        case .jwtAccessTokens(let jwksURL):
            JWTAccessTokenProvider(
                issuer: configuration.issuer.absoluteString, jwksURL: jwksURL,
                policy: configuration.policy, httpClient: httpClient, timeout: timeout
            )
        case .userinfo:
            OpenIDUserInfoProvider(issuer: configuration.issuer, httpClient: httpClient, timeout: timeout)
        }
        let perMinute = max(1, configuration.launchesPerMinute)
        service = LauncherService(
            minting: minting,
            identityProvider: provider,
            claims: configuration.claims,
            cache: configuration.userinfoCacheLifetime > .zero ? UserInfoCache(maximumAge: configuration.userinfoCacheLifetime) : nil,
            rateLimiter: SubjectRateLimiter(capacity: perMinute, refillInterval: .milliseconds(60_000 / perMinute)),
            providerLimit: ProviderRequestLimit(maximum: configuration.maximumProviderRequests),
            tokenExchanger: configuration.tokenExchange.map { exchange in
                OAuthTokenExchanger(
                    tokenEndpoint: exchange.endpoint, clientID: exchange.clientID, clientSecret: exchange.clientSecret,
                    httpClient: httpClient, timeout: timeout
                )
            },
            tokenForwarding: configuration.tokenForwarding,
            logger: Logger(label: "webapp-launch.launcher"),
            metrics: LauncherMetrics(factory: metrics.factory)
        )
        self.metrics = metrics
        self.configuration = configuration
        self.httpClient = httpClient
        self.readiness = readiness
        self.logger = logger
    }

    /// The launcher's routes (`openapi.yaml`), `/healthz` and `/readyz`.
    public func makeRouter() -> Router<BasicRequestContext> {
        LauncherRouter.make(service: service, readiness: readiness)
    }

    /// The Hummingbird application bound to the configured address, with the HTTP client shut
    /// down after the server stops, the metrics listener when one is configured
    /// (`MetricsEndpoint`), and development keys refused on a bound address that is not
    /// loopback (``BoundAddressGuard``).
    /// - Parameters:
    ///   - services: More services to run with it.
    ///   - onServerRunning: Called with the bound channel once the launcher listens.
    ///   - onMetricsServerRunning: The same for the metrics listener.
    /// - Returns: The application; `runService()` handles SIGTERM.
    public func makeApplication(
        services: [any Service] = [],
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in },
        onMetricsServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        var all = services
        all.append(ClientShutdown(client: httpClient))
        if let listener = configuration.metrics {
            all.append(MetricsEndpoint.application(
                listener: listener, metrics: metrics, idleTimeout: configuration.idleTimeout,
                onServerRunning: onMetricsServerRunning, logger: logger
            ))
        }
        let onRunning = BoundAddressGuard.install(for: configuration.keyring, in: &all, onServerRunning: onServerRunning)
        return Application(
            router: makeRouter(),
            server: .webAppLaunchHTTP1(idleTimeout: configuration.idleTimeout),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            services: all,
            onServerRunning: onRunning,
            logger: logger
        )
    }

    /// Shuts the provider client down once the service group stops (after the server), so
    /// no provider connection outlives the launcher and the client is never released open.
    private struct ClientShutdown: Service {
        let client: HTTPClient

        func run() async throws {
            try? await gracefulShutdown()
            try await client.shutdown()
        }
    }
}
