import Logging
import ServiceLifecycle
import UnixSignals

/// The first step of a graceful shutdown: readiness off, a pause for the load balancer to
/// see it, then the rest of the group (the server, which stops accepting and drains).
///
/// A service group shuts its services down in the reverse order they were given, each after
/// the one before it finished, so this service goes last in the list:
/// `ServiceGroup(services: [application, reloads, drain], …)`
/// (``ReadinessDrainService/runningFirstOnShutdown(_:readiness:delay:logger:)`` builds that).
public struct ReadinessDrainService: Service {
    /// The switch `/readyz` reads.
    public let readiness: ReadinessSwitch
    /// How long `/readyz` answers 503 before the server stops accepting: at least the load
    /// balancer's probe interval times its unhealthy threshold in production.
    public let delay: Duration
    private let logger: Logger

    /// - Parameters:
    ///   - readiness: The switch to turn off.
    ///   - delay: The pause between readiness off and the server's own shutdown.
    ///   - logger: Where the start of draining is logged.
    public init(readiness: ReadinessSwitch, delay: Duration, logger: Logger = Logger(label: "webapp-launch")) {
        self.readiness = readiness
        self.delay = delay
        self.logger = logger
    }

    public func run() async throws {
        try? await gracefulShutdown()
        readiness.beginDraining()
        logger.notice("shutdown.readiness_off", metadata: ["delay": "\(delay)"])
        // Not cancellable by the shutdown itself: the pause is the point.
        try? await Task.sleep(for: delay)
    }

    /// Runs an application's service with readiness turned off first on SIGTERM or SIGINT,
    /// then the reload service stopped, then the application drained.
    /// - Parameters:
    ///   - service: The application (a Hummingbird `Application` is a `Service`).
    ///   - reloads: The reload service, if any.
    ///   - readiness: The switch its `/readyz` reads.
    ///   - delay: The pause between readiness off and the application's shutdown.
    ///   - logger: The group's logger.
    public static func run(
        _ service: some Service,
        reloads: ConfigurationReloadService?,
        readiness: ReadinessSwitch,
        delay: Duration,
        logger: Logger
    ) async throws {
        var services: [any Service] = [service]
        if let reloads { services.append(reloads) }
        services.append(ReadinessDrainService(readiness: readiness, delay: delay, logger: logger))
        let group = ServiceGroup(configuration: .init(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        ))
        try await group.run()
    }
}
