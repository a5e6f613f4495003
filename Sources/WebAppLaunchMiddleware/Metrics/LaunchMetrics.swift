import Metrics
import Synchronization

/// The middleware's counters and latency, through swift-metrics.
///
/// The backend is the application's choice: pass the factory it exports from (the sample
/// server passes a Prometheus factory of its own and serves it on a separate, loopback-only
/// listener), or rely on the global `MetricsSystem`. Labels are the app id and the error code
/// only: never a token, name or KVNR.
public final class LaunchMetrics: Sendable {
    private let factory: any MetricsFactory
    /// Counters by label and dimensions, made once: creating swift-metrics objects per
    /// request would cost a registry lookup and allocations on the launch path.
    private let counters = Mutex<[String: Counter]>([:])
    /// The accepted-launch counter and timer per app, made together and looked up together,
    /// by the app id alone (no key to build): one lock and one lookup per accepted launch.
    private let acceptedByApp = Mutex<[String: Accepted]>([:])

    /// What an accepted launch updates.
    private struct Accepted: Sendable {
        let counter: Counter
        let timer: Timer
    }

    /// Creates the metrics.
    /// - Parameter factory: Where they are reported; the global metrics system by default.
    public init(factory: (any MetricsFactory)? = nil) {
        self.factory = factory ?? MetricsSystem.factory
    }

    /// Counts an accepted launch and records how long verification and the replay claim took.
    func accepted(app: String, duration: Duration) {
        let factory = factory
        let metrics = acceptedByApp.withLock { byApp in
            if let metrics = byApp[app] { return metrics }
            let metrics = Accepted(
                counter: Counter(label: "webapp_launch_accepted_total", dimensions: [("app", app)], factory: factory),
                timer: Timer(label: "webapp_launch_verify_duration_seconds", dimensions: [("app", app)], factory: factory)
            )
            byApp[app] = metrics
            return metrics
        }
        metrics.counter.increment()
        metrics.timer.recordInterval(duration)
    }

    /// Counts a rejection by its precise code.
    func rejected(app: String, code: String) {
        counter("webapp_launch_rejected_total", [("app", app), ("code", code)]).increment()
    }

    private func counter(_ label: String, _ dimensions: [(String, String)]) -> Counter {
        let key = ([label] + dimensions.map { "\($0.0)=\($0.1)" }).joined(separator: "\u{0}")
        let factory = factory
        return counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: label, dimensions: dimensions, factory: factory)
            counters[key] = counter
            return counter
        }
    }
}

extension Timer {
    fileprivate func recordInterval(_ duration: Duration) {
        recordNanoseconds(duration.saturatingNanoseconds)
    }
}
