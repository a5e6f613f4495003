import Foundation
import Synchronization

/// A token bucket per subject: each user may mint ``capacity`` launches in a burst, then one
/// more every ``refillInterval``.
///
/// Keyed by the provider's `sub`, not by the access token, so logging in again does not
/// reset the limit. The table is bounded: when it is full, buckets that have refilled
/// completely (which behave exactly like absent ones) are dropped first, then the fullest.
public final class SubjectRateLimiter: Sendable {
    /// Launches allowed in a burst.
    public let capacity: Int
    /// Time to earn one more launch.
    public let refillInterval: Duration
    /// Subjects tracked at most.
    public let maximumSubjects: Int

    private struct Bucket {
        var tokens: Double
        var updatedAt: Date
    }

    // Subject → bucket; read, refilled and debited in one critical section.
    private let buckets = Mutex<[String: Bucket]>([:])

    /// Creates a limiter.
    /// - Parameters:
    ///   - capacity: The burst size (at least 1).
    ///   - refillInterval: Time per additional launch (greater than zero).
    ///   - maximumSubjects: The bound on tracked subjects (at least 1).
    public init(capacity: Int = 10, refillInterval: Duration = .seconds(6), maximumSubjects: Int = 100_000) {
        self.capacity = max(1, capacity)
        self.refillInterval = refillInterval > .zero ? refillInterval : .seconds(1)
        self.maximumSubjects = max(1, maximumSubjects)
    }

    /// How many subjects have a bucket now (bounded by ``maximumSubjects``).
    public var trackedSubjects: Int { buckets.withLock { $0.count } }

    /// Takes one unit for a subject, if there is one.
    /// - Parameters:
    ///   - subject: The provider's subject identifier.
    ///   - now: The current time.
    /// - Returns: ``RateLimitDecision/allowed`` or how long to wait.
    public func admit(_ subject: String, now: Date) -> RateLimitDecision {
        let interval = Self.seconds(refillInterval)
        let capacity = Double(self.capacity)
        let limit = maximumSubjects
        return buckets.withLock { buckets in
            var bucket = buckets[subject] ?? Bucket(tokens: capacity, updatedAt: now)
            let elapsed = max(0, now.timeIntervalSince(bucket.updatedAt))
            bucket.tokens = min(capacity, bucket.tokens + elapsed / interval)
            bucket.updatedAt = max(bucket.updatedAt, now)
            guard bucket.tokens >= 1 else {
                buckets[subject] = bucket
                return .limited(retryAfterSeconds: max(1, Int(((1 - bucket.tokens) * interval).rounded(.up))))
            }
            bucket.tokens -= 1
            if buckets[subject] == nil && buckets.count >= limit {
                Self.evict(from: &buckets, now: now, interval: interval, capacity: capacity, limit: limit)
            }
            buckets[subject] = bucket
            return .allowed
        }
    }

    private static func evict(from buckets: inout [String: Bucket], now: Date, interval: Double, capacity: Double, limit: Int) {
        func level(_ bucket: Bucket) -> Double { min(capacity, bucket.tokens + max(0, now.timeIntervalSince(bucket.updatedAt)) / interval) }
        buckets = buckets.filter { level($0.value) < capacity }
        while buckets.count >= limit, let fullest = buckets.max(by: { level($0.value) < level($1.value) }) {
            buckets[fullest.key] = nil
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
