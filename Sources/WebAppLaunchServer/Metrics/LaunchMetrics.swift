import Metrics
import Prometheus

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
        Metrics.Counter(label: "webapp_launch_accepted_total", dimensions: [("app", app)], factory: factory).increment()
        Metrics.Timer(label: "webapp_launch_verify_duration_seconds", dimensions: [("app", app)], factory: factory).recordInterval(duration)
    }

    /// Counts a rejection by its precise code.
    func rejected(app: String, code: String) {
        Metrics.Counter(label: "webapp_launch_rejected_total", dimensions: [("app", app), ("code", code)], factory: factory).increment()
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
