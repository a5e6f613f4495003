import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
@testable import WebAppLaunchPostgres
import WebAppLaunchTestSupport

/// postgres-nio 1.33.2 writes each query to its channel with `promise: nil`; on a channel
/// that has already closed the write fails silently and the query's own promise is never
/// completed, so whoever awaits the query waits forever. The store closes a connection to
/// end a statement past its deadline, so it meets exactly this: these tests reproduce it
/// with a real connection and show that nothing in the store waits for it.
@Suite("PostgreSQL store: a query the driver drops is never waited for", .serialized, .traced)
struct PostgresDroppedWriteTests {
    static let logger = Logger(label: "test.pg.dropped")

    /// A connection of its own (not pooled), already closed.
    static func closedConnection(_ url: String) async throws -> PostgresConnection {
        let connection = try await connect(url, logger: logger)
        try await connection.close()
        return connection
    }

    /// Runs `operation` in a task and reports whether it ended within `bound`; the task is
    /// left behind if it did not (it never will).
    static func ends(within bound: Duration, _ operation: @escaping @Sendable () async -> Void) async throws -> Bool {
        let ended = Atomic(false)
        Task {
            await operation()
            ended.store(true, ordering: .releasing)
        }
        let start = ContinuousClock.now
        while ContinuousClock.now - start < bound, !ended.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(20)) }
        return ended.load(ordering: .acquiring)
    }

    @Test("the upstream bug, reproduced: a query on a connection that has closed never returns, even when its task is cancelled (if this fails, postgres-nio fixed it and the workaround may go)")
    func driverDropsTheWrite() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let connection = try await Self.closedConnection(cluster.url)
        let query = Task { _ = try? await connection.query("SELECT 1", logger: Self.logger) }
        let answered = try await Self.ends(within: .seconds(1)) { await query.value }
        query.cancel()
        let answeredAfterCancel = try await Self.ends(within: .seconds(1)) { await query.value }
        #expect(!answered && !answeredAfterCancel, "postgres-nio answered a query on a closed connection: the dropped write is fixed upstream")
    }

    @Test("the store's claim statement on a connection that has closed returns at once when cancelled (as the batcher abandons it at its claims' deadline), and the connection is closed")
    func storeStatementIsAbandoned() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let store = try PostgresFixtures.store(url: cluster.url)
        let connection = try await Self.closedConnection(cluster.url)
        let outcome = Mutex<Result<Set<ReplayID>, any Error>?>(nil)
        let statement = Task {
            let result: Result<Set<ReplayID>, any Error>
            do { result = .success(try await store.insert(ClaimBatch(ids: [ReplayID(high: 1, low: 2)], expiresAt: [5_000]), on: connection)) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(outcome.withLock { $0 } == nil, "control: the statement was answered, so the dropped write did not happen")
        statement.cancel()
        let ended = try await Self.ends(within: .milliseconds(500)) { await statement.value }
        #expect(ended, "a cancelled statement waited for a query the driver dropped")
        let cancelled = outcome.withLock { result in
            if case .failure(let error) = result { error is CancellationError } else { false }
        }
        #expect(cancelled)
    }

    @Test("the sweep, bounded by its deadline, returns unavailable even when its query is dropped")
    func abandoningWaitHasADeadline() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let connection = try await Self.closedConnection(cluster.url)
        let closes = Atomic(0)
        let started = ContinuousClock.now
        await #expect {
            try await waitAbandoningOnCancel(timeout: .milliseconds(300), abandon: { closes.add(1, ordering: .relaxed) }) {
                try await connection.query("SELECT 1", logger: Self.logger).collect().count
            }
        } throws: { error in
            (error as? ReplayStoreError)?.code == .unavailable
        }
        #expect(ContinuousClock.now - started < .seconds(2))
        // The timer answers the waiter, then abandons: the waiter may run first.
        for _ in 0..<100 where closes.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        let closeCount = closes.load(ordering: .relaxed)
        #expect(closeCount == 1)
    }

    @Test("a claim whose statement is dropped by the driver is answered unavailable at its deadline, the slot is replaced, the next claim is granted, and the batcher stops at once when closed")
    func batcherRecoversFromADroppedStatement() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let store = try PostgresFixtures.store(url: cluster.url)
        let components = URLComponents(string: cluster.url)!
        let configuration = PostgresConnection.Configuration(
            host: components.host!, port: components.port!, username: components.user!, password: nil, database: "postgres", tls: .disable
        )
        let batcher = ClaimBatcher(maximumInFlight: 1, claimTimeout: .milliseconds(400))
        let statements = Atomic(0)
        let opened = Atomic(0)
        let stopped = Atomic(false)
        Task {
            await batcher.run(
                lanes: { use in
                    let connection = try await PostgresConnection.connect(configuration: configuration, id: opened.add(1, ordering: .relaxed).newValue, logger: Self.logger)
                    await use(connection)
                    try? await connection.close()
                },
                isOpen: { !$0.isClosed },
                close: { connection in connection.close().whenComplete { _ in } },
                send: { batch, connection in
                    // The first statement finds its connection closed just before it is written,
                    // as when the database restarts between the check and the write.
                    if statements.add(1, ordering: .relaxed).newValue == 1 { try? await connection.close() }
                    return try await store.insert(batch, on: connection)
                }
            )
            stopped.store(true, ordering: .releasing)
        }
        let started = ContinuousClock.now
        await #expect {
            try await batcher.claim(ReplayID(high: 3, low: 1), expiresAt: 5_000)
        } throws: { error in
            (error as? ReplayStoreError)?.code == .unavailable
        }
        #expect(ContinuousClock.now - started < .seconds(2), "the claim outlived its deadline")
        #expect(try await batcher.claim(ReplayID(high: 3, low: 2), expiresAt: 5_000), "the slot never recovered from the dropped statement")
        let lanesOpened = opened.load(ordering: .relaxed)
        #expect(lanesOpened == 2, "the dropped statement's lane was not replaced")
        batcher.close()
        let ended = try await Self.ends(within: .seconds(2)) {
            while !stopped.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(ended, "run() did not return after close()")
    }
}
