import Metrics

/// The launcher's counters, for its metrics listener (`--metrics-address`, the endpoint
/// `serve` and the gate have): launches minted by app, launches refused by code.
///
/// A refusal carries no app: the app id of a refused request is whatever the caller sent, and
/// a label per unregistered id would let any client grow the metrics without bound. A minted
/// launch's app is a registered one. Nothing about the user is ever a label.
public struct LauncherMetrics: Sendable {
    /// Launches minted, by app.
    public static let mintedLabel = "webapp_launch_launcher_minted_total"
    /// Launches refused, by code (``LauncherError/Code``).
    public static let refusedLabel = "webapp_launch_launcher_refused_total"

    private let factory: any MetricsFactory

    /// - Parameter factory: Where the counters report (a listener's `ServerMetrics.factory`).
    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Counts a launch minted for a registered app.
    func minted(app: String) {
        Counter(label: Self.mintedLabel, dimensions: [("app", app)], factory: factory).increment()
    }

    /// Counts a refusal by its code.
    func refused(_ code: LauncherError.Code) {
        Counter(label: Self.refusedLabel, dimensions: [("code", code.rawValue)], factory: factory).increment()
    }
}
