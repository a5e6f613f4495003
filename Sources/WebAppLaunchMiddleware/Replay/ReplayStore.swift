import WebAppLaunch

/// Where a web app remembers which launches were used: the replay half of verification.
///
/// A store's one promise: of any number of concurrent claims of the same id, exactly one
/// returns `true`, and an id once claimed stays claimed until its deadline has passed. A store
/// that cannot answer throws ``ReplayStoreError``, and the middleware rejects the launch with
/// 503: it never accepts a launch it could not record.
///
/// Implementations: ``InMemoryReplayStore`` here, `SQLiteReplayStore` (module
/// `WebAppLaunchSQLite`) and `PostgresReplayStore` (module `WebAppLaunchPostgres`). Sizes are
/// reported by each store's own sweeper as a gauge, so a metrics scrape never queries a store.
public protocol ReplayStore: Sendable {
    /// Claims a launch's replay id until a deadline.
    ///
    /// - Parameters:
    ///   - id: The launch's ``ReplayID`` (a keyed hash of its nonce).
    ///   - deadline: Seconds since 1970 until which the id must be remembered
    ///     (``ReplayRetention/deadline(expiresAt:)``).
    ///   - now: The current time in seconds since 1970, used to sweep expired ids.
    /// - Returns: `true` when this call claimed the id, `false` when it was claimed before.
    /// - Throws: ``ReplayStoreError`` when the store cannot answer; callers must reject the launch.
    func claim(_ id: ReplayID, until deadline: UInt64, now: UInt64) async throws -> Bool

    /// Whether the store can be expected to answer claims now, for a readiness check
    /// (`/readyz`): a load balancer stops sending launches to an instance whose store is
    /// not ready, instead of letting each wait for its claim deadline and a 503.
    ///
    /// Cheap when ready; a store that is not ready may do bounded work (the PostgreSQL store
    /// sends one probe claim) to find out whether it has recovered.
    /// - Returns: `true` by default (a store in memory or in a local file is always ready).
    func readiness() async -> Bool
}

extension ReplayStore {
    /// Always ready: a store in memory or in a local file answers whenever the process runs.
    public func readiness() async -> Bool { true }
}
