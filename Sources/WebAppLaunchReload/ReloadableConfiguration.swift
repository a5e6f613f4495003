import Logging
import Metrics
import Synchronization

/// A configuration (keyring, registry, the verifiers or signer built from them) that can be
/// replaced while requests are served, all or nothing.
///
/// A reload reads and validates the whole new configuration with the same loader the service
/// started with (the same file-mode checks, ``DevelopmentKeyPolicy``, app-keyring checks), and
/// only then swaps it in, atomically. A configuration that does not load (bad JSON, a keyring
/// readable by others, development keys where they are refused, an app keyring of another
/// app, a registry that no longer names a served app, a CMS that is down) changes nothing:
/// the old one stays in use, one log line says why and the counter
/// `webapp_launch_config_reloads_total{config, result="kept"}` grows.
///
/// A request takes ``current`` once, when it starts, and finishes on that snapshot, so a
/// launch in flight is verified or minted with the keys it began with.
///
/// The decisions (one load at a time, requests during a load coalesced into one more load)
/// are ``ReloadStateMachine``'s; this type is its thin runner. ``ConfigurationReloadService``
/// calls ``reload()`` on SIGHUP (and on an interval); tests and embedding apps call it directly.
public final class ReloadableConfiguration<Value: Sendable>: Sendable {
    /// What a reload loads: everything read and validated, or a thrown error (its description
    /// is logged, so it must not carry secrets; the project's loaders' errors do not).
    public typealias Loader = @Sendable () async throws -> Value

    /// The name in logs and metrics, e.g. `keyring+registry`.
    public let name: String
    private let loader: Loader
    private let logger: Logger
    private let reloadedCounter: Counter
    private let keptCounter: Counter
    /// The configuration in use and the reload decisions, under one lock: a swap and the
    /// generation it bumps are seen together. The configuration is boxed, so taking it under
    /// the lock is one reference, however many fields it has.
    private let state: Mutex<(current: Snapshot, machine: ReloadStateMachine)>

    /// One loaded configuration, never changed: replaced whole by a reload.
    private final class Snapshot: Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// Creates a reloadable configuration around one already loaded at startup.
    /// - Parameters:
    ///   - name: The name in logs and metrics.
    ///   - initial: The configuration loaded (and validated) at startup.
    ///   - logger: Where a reload logs its one line.
    ///   - metricsFactory: Where the reload counters go; the global metrics system by default.
    ///   - loader: Reads and validates the configuration again.
    public init(
        name: String,
        initial: Value,
        logger: Logger = Logger(label: "webapp-launch.reload"),
        metricsFactory: (any MetricsFactory)? = nil,
        loader: @escaping Loader
    ) {
        self.name = name
        self.loader = loader
        self.logger = logger
        let factory = metricsFactory ?? MetricsSystem.factory
        reloadedCounter = Counter(label: Self.metricLabel, dimensions: [("config", name), ("result", "reloaded")], factory: factory)
        keptCounter = Counter(label: Self.metricLabel, dimensions: [("config", name), ("result", "kept")], factory: factory)
        state = Mutex((Snapshot(initial), ReloadStateMachine()))
    }

    /// A configuration that never changes (an embedding app without reloads, tests): a reload
    /// keeps it and says so.
    /// - Parameter value: The configuration.
    /// - Returns: The fixed configuration.
    public static func fixed(_ value: Value, name: String = "fixed") -> ReloadableConfiguration<Value> {
        ReloadableConfiguration(name: name, initial: value, logger: Logger(label: "webapp-launch.reload")) {
            throw FixedConfiguration()
        }
    }

    /// The swift-metrics label of the reload counter.
    public static var metricLabel: String { "webapp_launch_config_reloads_total" }

    /// The configuration in use now. Take it once per request and use that snapshot to the
    /// end of the request.
    public var current: Value {
        state.withLock { $0.current }.value
    }

    /// Calls `body` with the configuration in use now, without copying it: what a request's
    /// hot path takes when it needs one decision of the configuration (a copy of a verifier's
    /// configuration is a retain and a release for each of its fields, per request). The
    /// configuration stays the one in use when the call began, whatever a reload swaps in
    /// meanwhile; the lock is not held while `body` runs.
    /// - Parameter body: What to do with the configuration.
    /// - Returns: What `body` returns.
    public func withCurrent<Result>(_ body: (Value) throws -> Result) rethrows -> Result {
        let snapshot = state.withLock { $0.current }
        return try body(snapshot.value)
    }

    /// How many reloads have swapped a configuration in since startup.
    public var generation: UInt64 {
        state.withLock { $0.machine.generation }
    }

    /// Reads and validates the configuration again and swaps it in if it is valid.
    ///
    /// Never throws: a refused configuration is an outcome (``ReloadOutcome/kept(reason:)``),
    /// logged and counted, and the service keeps serving with the old one.
    /// - Returns: What this call did; ``ReloadOutcome/coalesced`` when a reload was running
    ///   (it will read the files again once it finishes).
    @discardableResult
    public func reload() async -> ReloadOutcome {
        guard state.withLock({ $0.machine.reloadRequested() }) == .startLoading else {
            return .coalesced
        }
        while true {
            let outcome: ReloadOutcome
            do {
                let value = try await loader()
                outcome = state.withLock { state in
                    state.current = Snapshot(value)
                    return .reloaded(generation: state.machine.generation &+ 1)
                }
            } catch {
                outcome = .kept(reason: Self.oneLine(error))
            }
            let next = state.withLock { $0.machine.loadFinished(swapped: outcome.isReloaded) }
            report(outcome)
            if next == .done { return outcome }
        }
    }

    private func report(_ outcome: ReloadOutcome) {
        switch outcome {
        case .reloaded(let generation):
            reloadedCounter.increment()
            logger.notice("config.reloaded", metadata: ["config": "\(name)", "generation": "\(generation)"])
        case .kept(let reason):
            keptCounter.increment()
            logger.error("config.reload_refused", metadata: ["config": "\(name)", "reason": "\(reason)"])
        case .coalesced:
            break
        }
    }

    /// An error's description on one line: a log line per refusal, whatever the error says.
    static func oneLine(_ error: any Error) -> String {
        String("\(error)".map { $0.isNewline ? " " : $0 })
    }
}

/// The reason a ``ReloadableConfiguration/fixed(_:name:)`` configuration gives for keeping itself.
struct FixedConfiguration: Error, CustomStringConvertible {
    var description: String { "this configuration was given in code and has nothing to reload" }
}
