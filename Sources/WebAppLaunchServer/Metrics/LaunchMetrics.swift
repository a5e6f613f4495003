import Metrics
import Prometheus
import Synchronization

/// The server's metrics, exposed as Prometheus text at `/metrics`.
///
/// Built on swift-metrics with a Prometheus factory owned by this instance (not the global
/// bootstrap), so several servers in one process (tests, embedding apps) keep separate
/// counts. Labels are the app id and the error code only: never a token, name or KVNR.
public final class LaunchMetrics: Sendable {
    /// The Prometheus registry behind the metrics.
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let replayStoreSize: Metrics.Gauge
    /// Counters and timers by label and dimensions, made once: creating swift-metrics objects
    /// per request would cost a registry lookup and allocations on the launch path.
    private let counters = Mutex<[String: Metrics.Counter]>([:])
    private let timers = Mutex<[String: Metrics.Timer]>([:])

    /// Creates an empty set of metrics.
    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
            .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(50),
        ]
        self.factory = factory
        replayStoreSize = Metrics.Gauge(label: "webapp_launch_replay_store_size", factory: factory)
    }

    /// Counts an accepted launch and records how long verification and the replay claim took.
    func accepted(app: String, duration: Duration) {
        counter("webapp_launch_accepted_total", [("app", app)]).increment()
        let factory = factory
        timers.withLock { timers in
            if let timer = timers[app] { return timer }
            let timer = Metrics.Timer(label: "webapp_launch_verify_duration_seconds", dimensions: [("app", app)], factory: factory)
            timers[app] = timer
            return timer
        }.recordInterval(duration)
    }

    /// Counts a rejection by its precise code.
    func rejected(app: String, code: String) {
        counter("webapp_launch_rejected_total", [("app", app), ("code", code)]).increment()
    }

    private func counter(_ label: String, _ dimensions: [(String, String)]) -> Metrics.Counter {
        let key = ([label] + dimensions.map { "\($0.0)=\($0.1)" }).joined(separator: "\u{0}")
        let factory = factory
        return counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Metrics.Counter(label: label, dimensions: dimensions, factory: factory)
            counters[key] = counter
            return counter
        }
    }

    /// Records how many nonces the replay store holds.
    func recordReplayStoreSize(_ size: Int) {
        replayStoreSize.record(size)
    }

    /// The Prometheus text exposition of every metric.
    /// - Returns: The text for `/metrics`.
    public func exposition() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}

extension Metrics.Timer {
    fileprivate func recordInterval(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
