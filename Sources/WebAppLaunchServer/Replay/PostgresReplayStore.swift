import Logging
import WebAppLaunch

/// Placeholder until the PostgreSQL store lands: refuses to start, so a configuration that
/// asks for a shared store never silently runs without one.
public final class PostgresReplayStore: ReplayStore {
    /// Connects to PostgreSQL.
    public static func connect(url: String, logger: Logger) async throws -> PostgresReplayStore {
        throw ReplayStoreError(.invalidConfiguration, "the PostgreSQL replay store is not available in this build")
    }

    public func claim(_ id: ReplayID, until deadline: UInt64, now: UInt64) async throws -> Bool {
        throw ReplayStoreError(.unavailable, "the PostgreSQL replay store is not available in this build")
    }

    public func count() async throws -> Int { 0 }
}
