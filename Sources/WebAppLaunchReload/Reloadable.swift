/// Something ``ConfigurationReloadService`` can reload: a ``ReloadableConfiguration`` (any
/// value type it holds).
public protocol Reloadable: Sendable {
    /// The name in logs and metrics.
    var name: String { get }
    /// Reads, validates and swaps the configuration in, or keeps the old one.
    /// - Returns: What happened.
    func reload() async -> ReloadOutcome
}

extension ReloadableConfiguration: Reloadable {}
