import Foundation
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppRegistry

/// Everything the web-app server needs, checked before it starts.
public struct WebAppServerConfiguration: Sendable {
    /// Keys accepted for launches and used for session cookies.
    public var keyring: Keyring
    /// The registered apps (for titles and deep-link allowlists).
    public var registry: Registry
    /// The apps served, each at its public URL.
    public var apps: [ServedApp]
    /// The address to bind; default `127.0.0.1`.
    public var host: String
    /// The port to bind; default 8080 (0 picks a free port).
    public var port: Int
    /// Skew, maximum lifetime and size limits of verification.
    public var policy: VerificationPolicy
    /// Seconds a session cookie lasts; default 1800 (30 minutes).
    public var sessionLifetime: UInt64
    /// The replay store.
    public var replayStore: ReplayStoreConfiguration
    /// Whether a PostgreSQL replay store may run on a database with `synchronous_commit = off`
    /// (`PostgresReplayStore.Configuration.allowsAsynchronousCommit`); development only.
    public var replayAllowsAsynchronousCommit = false
    /// The current time; injectable for tests.
    public var clock: @Sendable () -> Date
    /// How long a connection may stay silent before the server closes it; default 30 s, so
    /// idle or abandoned connections do not hold file descriptors forever. (A client that
    /// dribbles bytes is the job of a reverse proxy's read deadline or connection cap.)
    public var idleTimeout: Duration
    /// Demo users for the launcher console at `/`. The console exists only when this is not
    /// empty, the keyring is a development keyring and the host is loopback.
    public var demoUsers: [DemoUser]
    /// Where `GET /metrics` is served: a listener of its own, never the app's public one, so
    /// the rejection counters are no oracle for the public and a scrape costs the app nothing.
    /// `nil` serves no metrics. Loopback unless an operator names another address.
    public var metrics: MetricsListener?
    /// The deep link the sample page's button posts (``DevelopmentDefaults/articleDeepLink``).
    public var articleDeepLink: String
    /// Whether launches are exchanged on the connection's event loop when the replay store
    /// claims without a task (``LaunchFastPath``: the in-memory store at once, PostgreSQL
    /// through a callback); default `true`.
    /// The same exchange either way; `false` sends every launch through Hummingbird's
    /// request path (to compare the two, or to rule the fast path out).
    public var answersLaunchesOnEventLoop = true

    /// Creates a configuration with the defaults.
    /// - Parameters:
    ///   - keyring: The keyring.
    ///   - registry: The registry.
    ///   - apps: The apps to serve.
    public init(keyring: Keyring, registry: Registry, apps: [ServedApp]) {
        self.keyring = keyring
        self.registry = registry
        self.apps = apps
        self.host = "127.0.0.1"
        self.port = 8080
        self.policy = VerificationPolicy()
        self.sessionLifetime = 1800
        self.replayStore = .memory(capacity: InMemoryReplayStore.defaultCapacity)
        self.clock = { Date() }
        self.demoUsers = []
        self.idleTimeout = .seconds(30)
        self.metrics = nil
        self.articleDeepLink = DevelopmentDefaults.articleDeepLink
    }

    /// Whether the launcher console is served (see ``DevelopmentConsole``).
    public var servesDevelopmentConsole: Bool {
        !demoUsers.isEmpty && DevelopmentConsole.isPermitted(keyring: keyring, host: host)
    }

    /// Whether the bind address names loopback. The server also checks the address it
    /// actually bound (``BoundAddressGuard``), since a name can resolve anywhere.
    public var bindsLoopbackOnly: Bool {
        RegisteredURL.isLoopback(host.lowercased())
    }

    /// Whether any app is served over https (then every response carries HSTS).
    public var servesHTTPS: Bool {
        apps.contains { $0.publicURL.scheme == "https" }
    }

    /// Checks the settings, refusing anything unsafe with one clear sentence.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws(ConfigurationError) {
        guard !apps.isEmpty else { throw ConfigurationError("no web app to serve") }
        guard (0...65535).contains(port) else { throw ConfigurationError("the port must be 0 to 65535") }
        guard idleTimeout >= .milliseconds(100) else { throw ConfigurationError("the idle timeout must be at least 100 ms") }
        guard sessionLifetime >= 60, sessionLifetime <= 24 * 3600 else {
            throw ConfigurationError("the session lifetime must be 60 s to 24 h")
        }
        guard keyring.keys.contains(where: { $0.status == .active }) else {
            throw ConfigurationError("the keyring has no active key (needed for session cookies)")
        }
        try DevelopmentKeyPolicy.check(keyring, bindHost: host, publicURLs: apps.map(\.publicURL))
        if let metrics {
            guard (0...65535).contains(metrics.port) else { throw ConfigurationError("the metrics port must be 0 to 65535") }
            if metrics.port != 0 && metrics.port == port && metrics.host == host {
                throw ConfigurationError("metrics need a listener of their own, not the app's address")
            }
        }
        var paths = Set<String>()
        for served in apps {
            guard paths.insert(served.publicURL.path).inserted else {
                throw ConfigurationError("two apps share the path \(served.publicURL.path)")
            }
            guard ["/healthz", "/readyz", "/console"].allSatisfy({ !served.publicURL.path.hasPrefix($0) }) else {
                throw ConfigurationError("an app cannot be served under /healthz, /readyz or /console")
            }
            if servesDevelopmentConsole && served.publicURL.path == "/" {
                throw ConfigurationError("the launcher console uses `/`; serve the app under a path")
            }
        }
    }
}
