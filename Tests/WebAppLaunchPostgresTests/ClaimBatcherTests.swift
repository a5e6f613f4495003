import Synchronization
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
@testable import WebAppLaunchPostgres

/// The claim batcher on its own, with a table in memory standing in for PostgreSQL's
/// `INSERT … ON CONFLICT DO NOTHING RETURNING`: exactly once, fail closed, deadlines.
@Suite("Claim batcher: concurrent claims share statements and stay exactly once")
struct ClaimBatcherTests {
    /// A stand-in for the claims table that records every statement it was sent.
    final class Table: Sendable {
        private let rows = Mutex<Set<ReplayID>>([])
        private let statements = Mutex<[ClaimBatcher.Batch]>([])
        private let cancellations = Mutex(0)
        let delay: Duration
        let failure: (any Error & Sendable)?
        /// A statement that runs its whole delay even when cancelled, as a database that is
        /// slow to notice a closed connection.
        let ignoresCancellation: Bool

        init(delay: Duration = .milliseconds(20), failure: (any Error & Sendable)? = nil, ignoresCancellation: Bool = false) {
            self.delay = delay
            self.failure = failure
            self.ignoresCancellation = ignoresCancellation
        }

        var sent: [ClaimBatcher.Batch] { statements.withLock { $0 } }
        /// How many statements stopped because they were cancelled.
        var cancelled: Int { cancellations.withLock { $0 } }

        func insert(_ batch: ClaimBatcher.Batch) async throws -> Set<ReplayID> {
            statements.withLock { $0.append(batch) }
            if ignoresCancellation {
                let delay = delay
                await Task.detached { try? await Task.sleep(for: delay) }.value
            } else {
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    cancellations.withLock { $0 += 1 }
                    throw error
                }
            }
            if let failure { throw failure }
            return rows.withLock { rows in Set(batch.ids.filter { rows.insert($0).inserted }) }
        }
    }

    struct StatementFailed: Error, Equatable {}

    static func id(_ n: UInt64) -> ReplayID { ReplayID(high: n, low: ~n) }

    /// Runs a batcher over a table for the duration of `body`.
    static func withBatcher<T: Sendable>(
        _ table: Table,
        maximumInFlight: Int = 2,
        _ body: @Sendable (ClaimBatcher) async throws -> T
    ) async throws -> T {
        let batcher = ClaimBatcher(maximumInFlight: maximumInFlight)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { await batcher.run { try await table.insert($0) }; return nil }
            let result = try await body(batcher)
            batcher.close()
            for try await _ in group {}
            return result
        }
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
        let table = Table(delay: .milliseconds(300))
        try await Self.withBatcher(table, maximumInFlight: 1) { batcher in
            // The first claim occupies the only slot for 300 ms; the second waits in the queue.
            async let first = batcher.claim(Self.id(1), expiresAt: 1)
            for _ in 0..<200 where table.sent.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
            let second = Task { try await batcher.claim(Self.id(2), expiresAt: 1) }
            try await Task.sleep(for: .milliseconds(20))
            second.cancel()
            let outcome = await second.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            #expect(try await first)
        }
        #expect(!table.sent.flatMap(\.ids).contains(Self.id(2)), "a cancelled claim reached the database")
    }

    @Test("closing fails what waits, and claims after it fail at once with unavailable")
    func closedBatcherRefuses() async throws {
        let batcher = ClaimBatcher(maximumInFlight: 1)
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
/// its statement does, and a claim that expired while queued is never sent.
@Suite("Claim batcher: every claim is answered by its deadline")
struct ClaimBatcherDeadlineTests {
    @Test("a claim whose statement takes longer than the deadline is answered unavailable near the deadline, not when the statement ends")
    func slowStatementMeetsDeadline() async throws {
        let table = ClaimBatcherTests.Table(delay: .seconds(3))
        let batcher = ClaimBatcher(maximumInFlight: 1, claimTimeout: .milliseconds(200))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await batcher.run { try await table.insert($0) } }
            let clock = ContinuousClock()
            let start = clock.now
            do {
                _ = try await batcher.claim(ClaimBatcherTests.id(1), expiresAt: 1)
                Issue.record("a claim was granted after its deadline")
            } catch let error as ReplayStoreError {
                #expect(error.code == .unavailable)
            }
            let waited = clock.now - start
            #expect(waited >= .milliseconds(200))
            #expect(waited < .seconds(2), "answered only when the statement ended: \(waited)")
            batcher.close()
            try await group.waitForAll()
        }
        #expect(table.sent.flatMap(\.ids) == [ClaimBatcherTests.id(1)], "control: the statement was sent")
    }

    @Test("a claim that reaches its deadline while queued is answered unavailable and never sent")
    func queuedClaimExpiresUnsent() async throws {
        let table = ClaimBatcherTests.Table(delay: .milliseconds(800), ignoresCancellation: true)
        let batcher = ClaimBatcher(maximumInFlight: 1, claimTimeout: .milliseconds(300))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await batcher.run { try await table.insert($0) } }
            // The first claim holds the only slot for 800 ms; the second queues behind it.
            async let first: Bool? = try? batcher.claim(ClaimBatcherTests.id(1), expiresAt: 1)
            for _ in 0..<200 where table.sent.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
            do {
                _ = try await batcher.claim(ClaimBatcherTests.id(2), expiresAt: 1)
                Issue.record("a queued claim was granted after its deadline")
            } catch let error as ReplayStoreError {
                #expect(error.code == .unavailable)
            }
            #expect(await first == nil, "the first claim outlived its deadline too")
            batcher.close()
            try await group.waitForAll()
        }
        #expect(!table.sent.flatMap(\.ids).contains(ClaimBatcherTests.id(2)), "an expired claim reached the database")
    }

    @Test("claims answered within the deadline are not touched by the watcher")
    func timelyClaimsUnaffected() async throws {
        // A deadline far beyond a 10 ms statement even on a loaded machine; the watcher still
        // looks every 100 ms, so the 20 rounds span many of its passes.
        let table = ClaimBatcherTests.Table(delay: .milliseconds(10))
        let batcher = ClaimBatcher(maximumInFlight: 2, claimTimeout: .seconds(5))
        let granted = try await withThrowingTaskGroup(of: [Bool].self) { group in
            group.addTask { await batcher.run { try await table.insert($0) }; return [] }
            var granted: [Bool] = []
            for round in 0..<20 {
                granted.append(try await batcher.claim(ClaimBatcherTests.id(UInt64(round)), expiresAt: 1))
                try await Task.sleep(for: .milliseconds(60))
            }
            batcher.close()
            try await group.waitForAll()
            return granted
        }
        #expect(granted == Array(repeating: true, count: 20))
    }

    @Test("a statement is cancelled once every claim in it has expired, freeing its connection")
    func abandonedStatementIsCancelled() async throws {
        let table = ClaimBatcherTests.Table(delay: .seconds(5))
        let batcher = ClaimBatcher(maximumInFlight: 1, claimTimeout: .milliseconds(200))
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await batcher.run { try await table.insert($0) } }
            await #expect(throws: ReplayStoreError.self) { try await batcher.claim(ClaimBatcherTests.id(1), expiresAt: 1) }
            for _ in 0..<200 where table.cancelled == 0 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(table.cancelled == 1, "the statement ran on after its last claim expired")
            batcher.close()
            try await group.waitForAll()
        }
        #expect(clock.now - start < .seconds(2), "the batcher waited for the 5 s statement")
    }
}
