import Metrics
import Prometheus

/// The metrics of a listener of ours (`serve`, the gate, the launcher) in Prometheus text, for its separate
/// metrics listener (``MetricsEndpoint``).
///
/// Owns a Prometheus registry and factory of its own (not the global bootstrap), so several
/// servers in one process (tests, embedding apps) keep separate counts. The middleware's
/// counters and the replay store's size gauge report into it; a scrape only formats what is
/// there and never asks the store anything.
public final class ServerMetrics: Sendable {
    /// The Prometheus registry behind the metrics.
    public let registry: PrometheusCollectorRegistry
    /// The factory the middleware and the replay store report through.
    public let factory: PrometheusMetricsFactory
    /// The middleware's counters and latency.
    public let launches: LaunchMetrics

    /// Creates an empty set of metrics.
    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
            .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(50),
        ]
        self.factory = factory
        launches = LaunchMetrics(factory: factory)
    }

    /// The Prometheus text exposition of every metric.
    /// - Returns: The text for `GET /metrics` on the metrics listener.
    public func exposition() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
