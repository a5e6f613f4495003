import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads configurations on SIGHUP and, optionally, on an interval (a registry served by a
/// CMS), for as long as its service group runs.
///
/// Every entry point (`serve`, `gate`, `launcher`) puts one in its service group with the
/// ``ReloadableConfiguration``s it built; what a reload reads and checks is each
/// configuration's own loader. SIGHUP is trapped when the service is made
/// (``make(reloading:interval:logger:)``), before the server listens: the default action of
/// SIGHUP ends the process, so a signal between "listening" and "trapped" would be fatal.
public struct ConfigurationReloadService: Service {
    private let configurations: [any Reloadable]
    private let signals: UnixSignalsSequence?
    private let interval: Duration?
    private let logger: Logger

    private init(configurations: [any Reloadable], signals: UnixSignalsSequence?, interval: Duration?, logger: Logger) {
        self.configurations = configurations
        self.signals = signals
        self.interval = interval
        self.logger = logger
    }

    /// Traps SIGHUP and returns the service that reloads on it.
    /// - Parameters:
    ///   - configurations: What a reload reloads, in order.
    ///   - onSignal: Whether SIGHUP reloads (`false` in processes that must not trap it, such
    ///     as test runners).
    ///   - interval: Also reload this often (a registry from a URL); `nil` for signals only.
    ///   - logger: Where a received signal is logged.
    /// - Returns: The service.
    public static func make(
        reloading configurations: [any Reloadable],
        onSignal: Bool = true,
        interval: Duration? = nil,
        logger: Logger = Logger(label: "webapp-launch.reload")
    ) async -> ConfigurationReloadService {
        let signals = onSignal ? await UnixSignalsSequence(trapping: .sighup) : nil
        return ConfigurationReloadService(configurations: configurations, signals: signals, interval: interval, logger: logger)
    }

    /// Reloads every configuration once, in order.
    /// - Returns: Each configuration's outcome.
    @discardableResult
    public func reloadAll() async -> [ReloadOutcome] {
        var outcomes: [ReloadOutcome] = []
        for configuration in configurations {
            outcomes.append(await configuration.reload())
        }
        return outcomes
    }

    public func run() async throws {
        let signals = signals
        let interval = interval
        let logger = logger
        // Ends on graceful shutdown: a reload running then finishes, no new one starts.
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                if let signals {
                    group.addTask {
                        for await _ in signals {
                            logger.notice("config.reload_requested", metadata: ["by": "SIGHUP"])
                            await self.reloadAll()
                        }
                    }
                }
                if let interval {
                    group.addTask {
                        while (try? await Task.sleep(for: interval)) != nil {
                            await self.reloadAll()
                        }
                    }
                }
                group.addTask {
                    // Keeps the service alive without signals or interval: a service that
                    // returns early would stop the whole group.
                    while (try? await Task.sleep(for: .seconds(3600))) != nil {}
                }
                await group.waitForAll()
            }
        }
    }
}
