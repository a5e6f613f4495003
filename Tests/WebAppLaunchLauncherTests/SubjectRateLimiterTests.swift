import Foundation
import Testing
import WebAppLaunchLauncher

/// The per-subject token bucket.
@Suite("Subject rate limiter")
struct SubjectRateLimiterTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("A burst of the capacity is allowed, the next is limited with a retry time")
    func burst() {
        let limiter = SubjectRateLimiter(capacity: 3, refillInterval: .seconds(10))
        for _ in 0..<3 { #expect(limiter.admit("a", now: Self.now) == .allowed) }
        #expect(limiter.admit("a", now: Self.now) == .limited(retryAfterSeconds: 10))
        #expect(limiter.admit("a", now: Self.now.addingTimeInterval(4)) == .limited(retryAfterSeconds: 6))
    }

    @Test("One launch is earned back per refill interval")
    func refill() {
        let limiter = SubjectRateLimiter(capacity: 1, refillInterval: .seconds(10))
        #expect(limiter.admit("a", now: Self.now) == .allowed)
        #expect(limiter.admit("a", now: Self.now.addingTimeInterval(9)) != .allowed)
        #expect(limiter.admit("a", now: Self.now.addingTimeInterval(10)) == .allowed)
    }

    @Test("Subjects have separate buckets")
    func separate() {
        let limiter = SubjectRateLimiter(capacity: 1, refillInterval: .seconds(60))
        #expect(limiter.admit("a", now: Self.now) == .allowed)
        #expect(limiter.admit("a", now: Self.now) != .allowed)
        #expect(limiter.admit("b", now: Self.now) == .allowed)
    }

    @Test("A clock going backwards neither refills nor traps")
    func backwardsClock() {
        let limiter = SubjectRateLimiter(capacity: 1, refillInterval: .seconds(10))
        #expect(limiter.admit("a", now: Self.now) == .allowed)
        #expect(limiter.admit("a", now: Self.now.addingTimeInterval(-3600)) != .allowed)
    }

    @Test("The table is bounded, and the fullest buckets make room first, so a spent one is kept")
    func bounded() {
        let limiter = SubjectRateLimiter(capacity: 2, refillInterval: .seconds(60), maximumSubjects: 3)
        #expect(limiter.admit("spent", now: Self.now) == .allowed)
        #expect(limiter.admit("spent", now: Self.now) == .allowed)
        for index in 0..<50 { #expect(limiter.admit("other\(index)", now: Self.now) == .allowed) }
        #expect(limiter.trackedSubjects <= 3)
        #expect(limiter.admit("spent", now: Self.now) != .allowed)
    }
}
