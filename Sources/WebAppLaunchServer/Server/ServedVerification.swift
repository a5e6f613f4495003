import Foundation
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppRegistry

/// What the server builds from its keyring and registry, and what a reload replaces at once:
/// the verification middleware of each served app and the registry entries the pages show.
public struct ServedVerification: Sendable {
    /// Reads the keyring and registry again for a reload, with the loaders (and file checks)
    /// the server started with.
    public typealias Source = @Sendable () async throws -> (Keyring, Registry)

    /// A served app with the middleware that verifies its launches.
    public struct Endpoint: Sendable {
        /// The app and its public URL (the audience).
        public let served: ServedApp
        /// Its launch verification, keys derived from the keyring.
        public let middleware: LaunchVerificationMiddleware<WebAppRequestContext>
        /// Its route on the event-loop launch path, when its store claims without waiting
        /// (``LaunchVerificationMiddleware/fastPathRoute(path:)``), built with the middleware.
        public let fastPathRoute: LaunchFastPath.Route?

        init(served: ServedApp, middleware: LaunchVerificationMiddleware<WebAppRequestContext>) {
            self.served = served
            self.middleware = middleware
            fastPathRoute = middleware.fastPathRoute(path: served.publicURL.path)
        }
    }

    /// The keyring the middlewares verify with.
    public let keyring: Keyring
    /// The registry the served apps' entries come from.
    public let registry: Registry
    /// One per served app, in the configuration's order.
    public let endpoints: [Endpoint]
    /// The endpoints' event-loop launch routes, gathered once per load: a launch finds its
    /// route among these without copying an endpoint (each copy retains and releases all of
    /// its parts; that was 2 % of a launch's CPU).
    private let fastPathRoutes: [LaunchFastPath.Route]

    init(keyring: Keyring, registry: Registry, endpoints: [Endpoint]) {
        self.keyring = keyring
        self.registry = registry
        self.endpoints = endpoints
        fastPathRoutes = endpoints.compactMap(\.fastPathRoute)
    }

    /// The event-loop launch route of the served app at `path`, if it has one.
    /// - Parameter path: The request's path, without its query.
    /// - Returns: The route, or `nil` (not a served app's path, or its store waits).
    public func fastPathRoute(path: Substring) -> LaunchFastPath.Route? {
        for route in fastPathRoutes where route.path == path {
            return route
        }
        return nil
    }

    /// Builds every served app's verification (keys derived here, once per load).
    /// - Parameters:
    ///   - configuration: The settings (validated).
    ///   - replayStore: Where launches are claimed.
    ///   - metrics: Where the middleware reports.
    /// - Returns: The verification.
    /// - Throws: `KeyringError` (`app_mismatch`: an app keyring of another app), or
    ///   ``ConfigurationError`` (``DevelopmentKeyPolicy``).
    static func make(configuration: WebAppServerConfiguration, replayStore: any ReplayStore, metrics: ServerMetrics) throws -> ServedVerification {
        var endpoints: [Endpoint] = []
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
                metrics: metrics.launches
            )
            endpoints.append(Endpoint(served: served, middleware: middleware))
        }
        return ServedVerification(keyring: configuration.keyring, registry: configuration.registry, endpoints: endpoints)
    }

    /// The configuration a reload would run with: the new keyring and registry, the same
    /// served apps at the same public URLs (their routes are fixed at startup), checked as at
    /// startup (``WebAppServerConfiguration/validate()``).
    /// - Parameters:
    ///   - configuration: The configuration the server started with.
    ///   - keyring: The keyring read again.
    ///   - registry: The registry read again.
    /// - Returns: The configuration to build from.
    /// - Throws: ``ConfigurationError`` when a served app is no longer registered, when the
    ///   keys switch between development and production, or when a startup check fails.
    public static func reloadedConfiguration(
        _ configuration: WebAppServerConfiguration,
        keyring: Keyring,
        registry: Registry
    ) throws(ConfigurationError) -> WebAppServerConfiguration {
        guard keyring.isDevelopment == configuration.keyring.isDevelopment else {
            throw ConfigurationError("the keyring changed between development and production keys: restart to switch")
        }
        var reloaded = configuration
        reloaded.keyring = keyring
        reloaded.registry = registry
        var apps: [ServedApp] = []
        for served in configuration.apps {
            guard let entry = registry.app(id: served.app.id) else {
                throw ConfigurationError("the registry no longer has the served app `\(served.app.id)`: restart to stop serving it")
            }
            apps.append(ServedApp(entry, publicURL: served.publicURL))
        }
        reloaded.apps = apps
        try reloaded.validate()
        return reloaded
    }
}
