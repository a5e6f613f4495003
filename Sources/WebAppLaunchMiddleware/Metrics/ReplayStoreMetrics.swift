/// The names replay stores report under, shared by every driver so dashboards do not care
/// which store is configured.
public enum ReplayStoreMetrics {
    /// The gauge of ids a store holds, recorded by the store's sweeper (never per scrape).
    public static let sizeLabel = "webapp_launch_replay_store_size"
}
