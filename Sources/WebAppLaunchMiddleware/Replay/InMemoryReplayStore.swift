import Metrics
import Synchronization
import WebAppLaunch

/// The default replay store: process memory, bounded, sharded for concurrency.
///
/// Ids are spread over 16 shards, each behind its own mutex, so concurrent launches rarely
/// contend; one atomic counter bounds the total. Each shard sweeps expired ids at most every
/// few seconds, and only when one of its ids has expired: it knows its earliest deadline, so
/// a sweep with nothing to remove costs nothing (a full store that holds only live ids
/// refuses at once instead of rebuilding every shard on every claim). When the store holds
/// `capacity` ids that have not expired, claims throw ``ReplayStoreError/Code/full`` (503)
/// rather than forget a live id: forgetting would let that launch be replayed. One process
/// only, and forgotten on restart: a launch used before a restart could be used again after
/// it, so `webapp-launch serve` defaults to the SQLite store and servers with several
/// instances use the PostgreSQL store.
///
/// The number of ids held is reported as the gauge `webapp_launch_replay_store_size` whenever
/// a shard sweeps, so a metrics scrape costs the store nothing.
public final class InMemoryReplayStore: SynchronousReplayStore {
    /// The default bound: one million live launches (about 50 MB).
    public static let defaultCapacity = 1_000_000
    private static let shardCount = 16
    private static let sweepInterval: UInt64 = 5

    private final class Shard: Sendable {
        struct State {
            var deadlines: [ReplayID: UInt64] = [:]
            var nextSweep: UInt64 = 0
            /// No id held has a deadline before this (`.max` when none is held): until then
            /// a sweep has nothing to remove.
            var earliestDeadline: UInt64 = .max
        }
        let state = Mutex(State())
    }

    private let shards: [Shard]
    private let capacity: Int
    /// Ids held across all shards. Invariant: equals the sum of the shards' counts whenever
    /// no claim or sweep is in progress; a claim reserves its slot here before inserting.
    private let total = Atomic<Int>(0)
    private let size: Gauge

    /// Creates a store.
    /// - Parameters:
    ///   - capacity: The most live ids held at once (split evenly across shards).
    ///   - metricsFactory: Where the size gauge is reported; the global metrics system by default.
    public init(capacity: Int = InMemoryReplayStore.defaultCapacity, metricsFactory: (any MetricsFactory)? = nil) {
        precondition(capacity >= Self.shardCount, "the capacity must be at least \(Self.shardCount)")
        shards = (0..<Self.shardCount).map { _ in Shard() }
        self.capacity = capacity
        size = Gauge(label: ReplayStoreMetrics.sizeLabel, factory: metricsFactory ?? MetricsSystem.factory)
    }

    public func claim(_ id: ReplayID, until deadline: UInt64, now: UInt64) throws -> Bool {
        if let claimed = attemptClaim(id, until: deadline, now: now) { return claimed }
        // No room: sweep every shard (one lock at a time, never two at once), then try again.
        sweep(now: now)
        if let claimed = attemptClaim(id, until: deadline, now: now) { return claimed }
        throw ReplayStoreError(.full, "the in-memory replay store holds its maximum of live launches")
    }

    public func claimSynchronously(_ id: ReplayID, until deadline: UInt64, now: UInt64) throws -> Bool {
        try claim(id, until: deadline, now: now)
    }

    /// Claims in the id's shard; `nil` when the store has no room.
    private func attemptClaim(_ id: ReplayID, until deadline: UInt64, now: UInt64) -> Bool? {
        let shard = shards[Int(truncatingIfNeeded: id.low % UInt64(Self.shardCount))]
        return shard.state.withLock { state -> Bool? in
            if now >= state.nextSweep { sweep(&state, now: now) }
            // Present means used, even if past its deadline and not yet swept: fail closed.
            guard state.deadlines[id] == nil else { return false }
            guard reserveSlot() else { return nil }
            state.deadlines[id] = deadline
            state.earliestDeadline = min(state.earliestDeadline, deadline)
            return true
        }
    }

    private func reserveSlot() -> Bool {
        guard total.add(1, ordering: .relaxed).newValue > capacity else { return true }
        total.subtract(1, ordering: .relaxed)
        return false
    }

    private func sweep(_ state: inout Shard.State, now: UInt64) {
        let (next, overflow) = now.addingReportingOverflow(Self.sweepInterval)
        state.nextSweep = overflow ? .max : next
        guard state.earliestDeadline <= now else {
            size.record(total.load(ordering: .relaxed))
            return
        }
        let before = state.deadlines.count
        // Rebuilt rather than pruned in place, so a shard shrinks again after a burst; the
        // new earliest deadline is found in the same pass.
        var earliest = UInt64.max
        state.deadlines = state.deadlines.filter { _, deadline in
            guard deadline > now else { return false }
            earliest = min(earliest, deadline)
            return true
        }
        state.earliestDeadline = earliest
        let remaining = total.subtract(before - state.deadlines.count, ordering: .relaxed).newValue
        size.record(remaining)
    }

    /// How many ids the store holds now, expired ones not yet swept included.
    /// - Returns: The count, taken shard by shard.
    public func count() -> Int {
        shards.reduce(0) { total, shard in total + shard.state.withLock { $0.deadlines.count } }
    }

    /// Removes every expired id now, in every shard (the store also does this by itself).
    /// - Parameter now: The current time in seconds since 1970.
    public func sweep(now: UInt64) {
        for shard in shards {
            shard.state.withLock { state in sweep(&state, now: now) }
        }
    }
}
