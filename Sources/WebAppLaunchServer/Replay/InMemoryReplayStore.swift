import Synchronization
import WebAppLaunch

/// The default replay store: process memory, bounded, sharded for concurrency.
///
/// Ids are spread over 16 shards, each behind its own mutex, so concurrent launches rarely
/// contend. Each shard sweeps expired ids at most every few seconds. When a shard is full of
/// ids that have not expired, claims throw ``ReplayStoreError/Code/full`` (503) rather than
/// forget a live id: forgetting would let that launch be replayed. One process only; use
/// ``PostgresReplayStore`` when several instances serve the same app.
public final class InMemoryReplayStore: ReplayStore {
    /// The default bound: one million live launches (about 50 MB).
    public static let defaultCapacity = 1_000_000
    private static let shardCount = 16
    private static let sweepInterval: UInt64 = 5

    private final class Shard: Sendable {
        struct State {
            var deadlines: [ReplayID: UInt64] = [:]
            var nextSweep: UInt64 = 0
        }
        let state = Mutex(State())
    }

    private let shards: [Shard]
    private let shardCapacity: Int

    /// Creates a store.
    /// - Parameter capacity: The most live ids held at once (split evenly across shards).
    public init(capacity: Int = InMemoryReplayStore.defaultCapacity) {
        precondition(capacity >= Self.shardCount, "the capacity must be at least \(Self.shardCount)")
        shards = (0..<Self.shardCount).map { _ in Shard() }
        shardCapacity = capacity / Self.shardCount
    }

    public func claim(_ id: ReplayID, until deadline: UInt64, now: UInt64) throws -> Bool {
        let shard = shards[Int(truncatingIfNeeded: id.low % UInt64(Self.shardCount))]
        let capacity = shardCapacity
        return try shard.state.withLock { state throws(ReplayStoreError) -> Bool in
            if now >= state.nextSweep || state.deadlines.count >= capacity {
                state.deadlines = state.deadlines.filter { $0.value > now }
                state.nextSweep = now + Self.sweepInterval
            }
            // Present means used, even if past its deadline and not yet swept: fail closed.
            guard state.deadlines[id] == nil else { return false }
            guard state.deadlines.count < capacity else {
                throw ReplayStoreError(.full, "the in-memory replay store holds its maximum of live launches")
            }
            state.deadlines[id] = deadline
            return true
        }
    }

    public func count() -> Int {
        shards.reduce(0) { total, shard in total + shard.state.withLock { $0.deadlines.count } }
    }

    /// Removes every expired id now, in every shard (the store also does this by itself).
    /// - Parameter now: The current time in seconds since 1970.
    public func sweep(now: UInt64) {
        for shard in shards {
            shard.state.withLock { state in
                state.deadlines = state.deadlines.filter { $0.value > now }
                state.nextSweep = now + Self.sweepInterval
            }
        }
    }
}
