import Foundation
import Synchronization

/// A clock that moves only when a test calls ``advance(by:)``: the one manual clock of the
/// suites, both as a `Clock` (deadlines, sleeps) and as the wall-clock `Date` a server or a
/// replay store reads (``date``, starting at ``TestTime/now``).
///
/// The suites run in parallel on a two-thread cooperative pool that CPU-heavy suites keep
/// busy for seconds at a time; a deadline test on the real clock then sees its 200 ms
/// deadline pass before its claim was even queued. On this clock a deadline passes exactly
/// when the test says so, and every assertion is about order, not about how fast the
/// machine happens to be.
public final class ManualClock: Clock, Sendable {
    /// A point on the clock: how far it has been advanced since it was created.
    public struct Instant: InstantProtocol {
        /// How far the clock had been advanced at this instant.
        public let offset: Duration

        /// The instant `offset` after the clock's start, for tests that reason about instants
        /// without moving a clock (a state machine fed instants directly).
        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UInt64: Sleeper] = [:]
        /// Sleeps begun whose continuation is not stored yet.
        var starting: Set<UInt64> = []
        /// Sleeps cancelled before their continuation was stored.
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    // The wall-clock time at offset zero.
    private let start: Date

    /// A clock whose ``date`` starts at `start`.
    public init(date start: Date = TestTime.now) {
        self.start = start
    }

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// The wall-clock time now: the start date plus how far the clock has been advanced.
    public var date: Date {
        let offset = now.offset.components
        return start + TimeInterval(offset.seconds) + TimeInterval(offset.attoseconds) / 1e18
    }

    /// The deadlines of the sleeps now waiting, so a test can wait until a task is asleep
    /// again before it moves the clock.
    public var sleepDeadlines: [Instant] { state.withLock { $0.sleepers.values.map(\.deadline) } }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            state.starting.insert(state.nextID)
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    state.starting.remove(id)
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    // Not stored yet: the sleep throws as it starts. Already woken: nothing to do.
                    if state.starting.contains(id) { state.cancelledEarly.insert(id) }
                    return nil
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleep whose deadline has come.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
