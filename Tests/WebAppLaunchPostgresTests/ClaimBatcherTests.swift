import Synchronization
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
@testable import WebAppLaunchPostgres
import WebAppLaunchTestSupport

/// The claim batcher on its own, with a table in memory standing in for PostgreSQL's
/// `INSERT … ON CONFLICT DO NOTHING RETURNING`: exactly once, fail closed, deadlines.
///
/// Every batcher here reads its deadlines from a ``ManualClock``: no claim times out unless
/// a test moves the clock, however long another suite holds the cooperative pool.
@Suite("Claim batcher: concurrent claims share statements and stay exactly once")
struct ClaimBatcherTests {
    /// A stand-in for the claims table that records every statement it was sent.
    final class Table: Sendable {
        private let rows = Mutex<Set<ReplayID>>([])
        private let statements = Mutex<[ClaimBatch]>([])
        private let cancellations = Mutex(0)
        private let completions = Mutex(0)
        let delay: Duration
        /// Where a statement waits out its delay: the test's manual clock (it then ends only
        /// when the test moves that clock past it), or the real clock when `nil`.
        let clock: ManualClock?
        let failure: (any Error & Sendable)?
        /// Which statements throw `failure` (every one unless told otherwise).
        let fails: @Sendable (ClaimBatch) -> Bool
        /// A statement that runs its whole delay even when cancelled, as a database that is
        /// slow to notice a closed connection.
        let ignoresCancellation: Bool

        init(
            delay: Duration = .milliseconds(20),
            on clock: ManualClock? = nil,
            failure: (any Error & Sendable)? = nil,
            when fails: @escaping @Sendable (ClaimBatch) -> Bool = { _ in true },
            ignoresCancellation: Bool = false
        ) {
            self.delay = delay
            self.clock = clock
            self.failure = failure
            self.fails = fails
            self.ignoresCancellation = ignoresCancellation
        }

        var sent: [ClaimBatch] { statements.withLock { $0 } }
        /// How many statements stopped because they were cancelled.
        var cancelled: Int { cancellations.withLock { $0 } }
        /// How many statements ran their whole delay and answered.
        var completed: Int { completions.withLock { $0 } }

        func insert(_ batch: ClaimBatch) async throws -> Set<ReplayID> {
            // The statement's end is fixed before the test can see it was sent: a test that
            // moves the clock once it sees the statement then always moves it from the
            // statement's start, however late the statement's task gets to its sleep.
            let end = clock.map { $0.now.advanced(by: delay) }
            statements.withLock { $0.append(batch) }
            if ignoresCancellation {
                await Task.detached { try? await self.wait(until: end) }.value
            } else {
                do {
                    try await wait(until: end)
                } catch {
                    cancellations.withLock { $0 += 1 }
                    throw error
                }
            }
            completions.withLock { $0 += 1 }
            if let failure, fails(batch) { throw failure }
            return rows.withLock { rows in Set(batch.ids.filter { rows.insert($0).inserted }) }
        }

        private func wait(until end: ManualClock.Instant?) async throws {
            if let clock, let end { try await clock.sleep(until: end, tolerance: nil) } else { try await Task.sleep(for: delay) }
        }
    }

    struct StatementFailed: Error, Equatable {}

    static func id(_ n: UInt64) -> ReplayID { ReplayID(high: n, low: ~n) }

    /// Waits (a bounded number of 5 ms sleeps, about 30 s on the real clock) until
    /// `condition` holds; throws if it never does.
    static func eventually(_ what: String, _ condition: () -> Bool) async throws {
        for _ in 0..<6_000 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        struct NeverHappened: Error, CustomStringConvertible { let description: String }
        throw NeverHappened(description: "never happened: \(what)")
    }

    /// Runs a batcher over a table for the duration of `body`, then closes it and moves
    /// `clock` on an hour at a time until the batcher has stopped, so every statement
    /// sleeping on it ends (also one whose task began its sleep only after a move), whether
    /// `body` returned or threw. With `lanes`, each slot's statements run on the lanes it
    /// opens, and each statement is recorded with its lane.
    ///
    /// Bounded: a batcher still running after that (about 30 s) fails the test and is left
    /// behind rather than awaited, so a broken batcher cannot hang the run.
    static func withBatcher<T: Sendable>(
        _ table: Table,
        maximumInFlight: Int = 2,
        claimTimeout: Duration = .seconds(2),
        clock: ManualClock = ManualClock(),
        lanes: Lanes? = nil,
        _ body: @Sendable (ClaimBatcher<ManualClock>) async throws -> T
    ) async throws -> T {
        let batcher = ClaimBatcher(maximumInFlight: maximumInFlight, claimTimeout: claimTimeout, clock: clock)
        let stopped = Atomic(false)
        let running = Task {
            if let lanes {
                await batcher.run(lanes: { use in try await lanes.open(use) }, isOpen: { lanes.isOpen($0) }) { batch, lane in
                    lanes.record(batch, on: lane)
                    return try await table.insert(batch)
                }
            } else {
                // Nothing to hold between statements: every lane is the same empty one.
                await batcher.run(lanes: { use in await use(()) }, isOpen: { _ in true }) { batch, _ in
                    try await table.insert(batch)
                }
            }
            stopped.store(true, ordering: .releasing)
        }
        let result: Result<T, any Error>
        do { result = .success(try await body(batcher)) } catch { result = .failure(error) }
        batcher.close()
        try await eventually("the batcher stops once closed") {
            clock.advance(by: .seconds(3600))
            return stopped.load(ordering: .acquiring)
        }
        await running.value
        return try result.get()
    }

    @Test("200 concurrent claims of distinct ids are all granted, in far fewer statements than claims")
    func distinctClaimsShareStatements() async throws {
        let table = Table()
        let granted = try await Self.withBatcher(table) { batcher in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for n in 0..<200 { group.addTask { try await batcher.claim(Self.id(UInt64(n)), expiresAt: 1) } }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
        }
        #expect(granted.count == 200)
        #expect(granted.allSatisfy { $0 })
        #expect(table.sent.count < 200, "every claim got its own statement")
        #expect(table.sent.reduce(0) { $0 + $1.ids.count } == 200)
    }

    @Test("50 concurrent claims of one id: exactly one is granted, the id is sent once per statement")
    func sameIdExactlyOnce() async throws {
        let table = Table()
        let granted = try await Self.withBatcher(table) { batcher in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 { group.addTask { try await batcher.claim(Self.id(7), expiresAt: 1) } }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
        }
        #expect(granted.filter { $0 }.count == 1)
        #expect(table.sent.allSatisfy { $0.ids == [Self.id(7)] })
    }

    @Test("a statement's ids are unique and ascending, so concurrent statements lock rows in one order")
    func idsSortedAndUnique() async throws {
        let table = Table(delay: .milliseconds(50))
        _ = try await Self.withBatcher(table, maximumInFlight: 1) { batcher in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for n in [9, 3, 3, 12, 1, 9, 40, 2] as [UInt64] {
                    group.addTask { try await batcher.claim(Self.id(n), expiresAt: 1) }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
        }
        for batch in table.sent {
            let keys = batch.ids.map { [$0.high, $0.low] }
            #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })
            #expect(Set(batch.ids).count == batch.ids.count)
            #expect(batch.ids.count == batch.expiresAt.count)
        }
    }

    @Test("a failed statement fails every claim in it, and none is granted (fail closed)")
    func failedStatementFailsEveryClaim() async throws {
        let table = Table(failure: StatementFailed())
        let outcomes = try await Self.withBatcher(table) { batcher in
            await withTaskGroup(of: Result<Bool, any Error>.self) { group in
                for n in 0..<40 {
                    group.addTask {
                        do { return .success(try await batcher.claim(Self.id(UInt64(n)), expiresAt: 1)) } catch { return .failure(error) }
                    }
                }
                return await group.reduce(into: [Result<Bool, any Error>]()) { $0.append($1) }
            }
        }
        #expect(outcomes.count == 40)
        #expect(outcomes.allSatisfy { if case .failure(let error) = $0 { error is StatementFailed } else { false } })
    }

    @Test("a claim cancelled while it waits is answered at once and never sent")
    func cancelledClaimIsNotSent() async throws {
        let clock = ManualClock()
        let table = Table(delay: .milliseconds(300), on: clock)
        try await Self.withBatcher(table, maximumInFlight: 1, clock: clock) { batcher in
            // The first claim holds the only slot until the clock moves; the second queues.
            async let first = batcher.claim(Self.id(1), expiresAt: 1)
            try await Self.eventually("the first claim is sent") { !table.sent.isEmpty }
            let second = Task { try await batcher.claim(Self.id(2), expiresAt: 1) }
            try await Self.eventually("the second claim is queued") { batcher.queuedCount == 1 }
            second.cancel()
            let outcome = await second.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            clock.advance(by: .milliseconds(300))  // the first statement ends; the slot frees
            #expect(try await first)
        }
        #expect(!table.sent.flatMap(\.ids).contains(Self.id(2)), "a cancelled claim reached the database")
    }

    @Test("closing fails what waits, and claims after it fail at once with unavailable")
    func closedBatcherRefuses() async throws {
        let batcher = ClaimBatcher(maximumInFlight: 1, clock: ManualClock())
        batcher.close()
        do {
            _ = try await batcher.claim(Self.id(1), expiresAt: 1)
            Issue.record("a closed batcher granted a claim")
        } catch let error as ReplayStoreError {
            #expect(error.code == .unavailable)
        }
    }
}

/// Deadlines are the batcher's: one watcher answers every claim by its deadline, whatever
/// its statement does, and a claim that expired while queued is never sent. The clock is
/// the test's: a deadline passes when the test moves it, so each test states an order of
/// events (sent, deadline, answer, statement end) that holds on a machine of any speed.
@Suite("Claim batcher: every claim is answered by its deadline")
struct ClaimBatcherDeadlineTests {
    typealias Table = ClaimBatcherTests.Table

    /// A claim started in its own task, whose outcome the test can look at before it is in.
    final class PendingClaim: Sendable {
        private final class Outcome: Sendable {
            let value = Mutex<Result<Bool, any Error>?>(nil)
        }

        private let outcome: Outcome
        private let task: Task<Void, Never>

        init(_ batcher: ClaimBatcher<ManualClock>, _ id: ReplayID) {
            let outcome = Outcome()
            self.outcome = outcome
            task = Task {
                let result: Result<Bool, any Error>
                do { result = .success(try await batcher.claim(id, expiresAt: 1)) } catch { result = .failure(error) }
                outcome.value.withLock { $0 = result }
            }
        }

        var isAnswered: Bool { outcome.value.withLock { $0 != nil } }

        /// The answer, once it is in (waiting a bounded time for it).
        func result() async throws -> Result<Bool, any Error> {
            try await ClaimBatcherTests.eventually("the claim is answered") { isAnswered }
            await task.value
            return outcome.value.withLock { $0! }
        }
    }

    /// Runs a batcher with a 200 ms claim timeout (the watcher looks every 10 ms) on `clock`.
    static func withBatcher(
        _ table: Table,
        clock: ManualClock,
        maximumInFlight: Int = 1,
        _ body: @Sendable (ClaimBatcher<ManualClock>) async throws -> Void
    ) async throws {
        try await ClaimBatcherTests.withBatcher(table, maximumInFlight: maximumInFlight, claimTimeout: .milliseconds(200), clock: clock, body)
    }

    /// Waits until the watcher sleeps (again, after the clock moved) and `others` statements
    /// sleep too, all waiting for a later instant: what the watcher does at the current time
    /// is done, and the next move of the clock wakes it.
    static func watcherSettled(_ clock: ManualClock, others: Int) async throws {
        try await ClaimBatcherTests.eventually("the watcher sleeps again") {
            let deadlines = clock.sleepDeadlines
            return deadlines.count == others + 1 && deadlines.allSatisfy { $0 > clock.now }
        }
    }

    static func isUnavailable(_ result: Result<Bool, any Error>) -> Bool {
        if case .failure(let error as ReplayStoreError) = result { error.code == .unavailable } else { false }
    }

    @Test("a claim whose statement outlasts the deadline is answered unavailable at the deadline, not before it, and not when the statement ends")
    func slowStatementMeetsDeadline() async throws {
        let clock = ManualClock()
        let table = Table(delay: .seconds(3), on: clock, ignoresCancellation: true)
        try await Self.withBatcher(table, clock: clock) { batcher in
            let claim = PendingClaim(batcher, ClaimBatcherTests.id(1))
            try await ClaimBatcherTests.eventually("the claim is sent") { !table.sent.isEmpty }
            try await Self.watcherSettled(clock, others: 1)
            clock.advance(by: .milliseconds(190))
            try await Self.watcherSettled(clock, others: 1)
            #expect(!claim.isAnswered, "answered before its deadline")
            clock.advance(by: .milliseconds(10))
            #expect(Self.isUnavailable(try await claim.result()))
            #expect(table.completed == 0, "answered only when the statement ended")
        }
        #expect(table.sent.flatMap(\.ids) == [ClaimBatcherTests.id(1)], "control: the statement was sent")
        // Abandoned at the deadline and never waited for: it ends by itself once the clock passes its end.
        try await ClaimBatcherTests.eventually("the abandoned statement ends by itself") { table.completed == 1 }
    }

    @Test("a claim that reaches its deadline while queued is answered unavailable and never sent")
    func queuedClaimExpiresUnsent() async throws {
        let clock = ManualClock()
        let table = Table(delay: .milliseconds(800), on: clock, ignoresCancellation: true)
        try await Self.withBatcher(table, clock: clock) { batcher in
            // The first claim holds the only slot; the second queues behind it.
            let first = PendingClaim(batcher, ClaimBatcherTests.id(1))
            try await ClaimBatcherTests.eventually("the first claim is sent") { !table.sent.isEmpty }
            let second = PendingClaim(batcher, ClaimBatcherTests.id(2))
            try await ClaimBatcherTests.eventually("the second claim is queued") { batcher.queuedCount == 1 }
            try await Self.watcherSettled(clock, others: 1)
            clock.advance(by: .milliseconds(200))
            #expect(Self.isUnavailable(try await second.result()), "a queued claim outlived its deadline")
            #expect(Self.isUnavailable(try await first.result()), "the first claim outlived its deadline")
            #expect(batcher.queuedCount == 0)
        }
        #expect(table.sent.flatMap(\.ids) == [ClaimBatcherTests.id(1)], "an expired claim reached the database")
    }

    @Test("claims answered within their deadline are not touched by the watcher, however far the clock moves between them")
    func timelyClaimsUnaffected() async throws {
        let clock = ManualClock()
        let table = Table(delay: .milliseconds(10))  // the real clock: each statement ends by itself
        let granted = Mutex<[Bool]>([])
        try await Self.withBatcher(table, clock: clock, maximumInFlight: 2) { batcher in
            for round in 0..<20 {
                let outcome = try await batcher.claim(ClaimBatcherTests.id(UInt64(round)), expiresAt: 1)
                granted.withLock { $0.append(outcome) }
                // Between claims, well past a claim timeout: the watcher wakes and finds nothing.
                clock.advance(by: .milliseconds(150))
                try await Self.watcherSettled(clock, others: 0)
            }
            #expect(clock.now.offset == .seconds(3), "control: the clock moved 15 claim timeouts")
        }
        #expect(granted.withLock { $0 } == Array(repeating: true, count: 20))
    }

    @Test("a statement is cancelled once every claim in it has expired, freeing its connection")
    func abandonedStatementIsCancelled() async throws {
        let clock = ManualClock()
        let table = Table(delay: .seconds(5), on: clock)
        try await Self.withBatcher(table, clock: clock) { batcher in
            let claim = PendingClaim(batcher, ClaimBatcherTests.id(1))
            try await ClaimBatcherTests.eventually("the claim is sent") { !table.sent.isEmpty }
            try await Self.watcherSettled(clock, others: 1)
            clock.advance(by: .milliseconds(200))
            #expect(Self.isUnavailable(try await claim.result()))
            // The clock never reaches the statement's 5 s: only the watcher can end it.
            try await ClaimBatcherTests.eventually("the statement is cancelled") { table.cancelled == 1 }
        }
        #expect(table.completed == 0, "the statement ran to its end")
    }
}
