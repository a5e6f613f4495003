import Foundation
import Logging
import PostgresNIO
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
@testable import WebAppLaunchPostgres
import WebAppLaunchTestSupport

/// "A launch answered 503 claims nothing", on a real database that records the claim all
/// the same: the statement passed its deadline check, then waited on another session's
/// row past its deadline, and committed once that session let go, after the store had
/// answered the launch 503 and closed the connection.
@Suite("PostgreSQL store: a launch answered 503 is granted when retried, even when the database recorded it", .serialized, .traced)
struct PostgresInDoubtClaimTests {
    static let logger = Logger(label: "test.pg.in-doubt")

    /// Whether `sql` (one boolean) becomes true within 10 s, polled every 50 ms on
    /// `connection` (each query its own transaction, so each sees the latest activity).
    static func becomes(_ sql: String, on connection: PostgresConnection) async throws -> Bool {
        for _ in 0..<200 {
            for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Bool.self) where value {
                return true
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Whether the store grants a fresh claim within 20 tries (the first claim creates the
    /// table, on a machine that may be busy starting other clusters).
    static func works(_ store: PostgresReplayStore) async -> Bool {
        for attempt in 0..<20 {
            if (try? await store.claim(ReplayID(high: 1, low: UInt64(attempt)), until: 5_000, now: 100)) == true { return true }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return false
    }

    @Test("a claim committed by the database after the store answered it unavailable is released by the store's next statement: the retry is granted, and only once")
    func claimCommittedAfterItsDeadlineIsReleased() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let store = try PostgresFixtures.store(url: cluster.url, claimTimeout: .seconds(4), statementsInFlight: 1)
        try await withRunning(store) { () async throws in
            #expect(await Self.works(store), "control: the store does not claim")
            let id = ReplayID(high: 7, low: 7)
            let row = "'\\x00000000000000070000000000000007'::bytea"
            let observer = try await connect(cluster.url, id: 3)
            // Another session holds an uncommitted row for the id until the launch is answered.
            let session = try await connect(cluster.url, id: 2)
            _ = try await session.query("BEGIN", logger: Self.logger)
            _ = try await session.query("INSERT INTO webapp_launch_claims (replay_id, expires_at) VALUES (\(unescaped: row), 5000)", logger: Self.logger)
            let launch = Task { try await store.claim(id, until: 5_000, now: 100) }
            #expect(try await Self.becomes(
                "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO webapp_launch_claims%')",
                on: observer
            ), "control: the store's statement never waited on the other session's row")
            await #expect {
                try await launch.value
            } throws: { error in
                (error as? ReplayStoreError)?.code == .unavailable
            }
            _ = try await session.query("ROLLBACK", logger: Self.logger)
            try await session.close()
            #expect(try await Self.becomes(
                "SELECT EXISTS (SELECT 1 FROM webapp_launch_claims WHERE replay_id = \(row) AND attempt IS NOT NULL)",
                on: observer
            ), "control: the database did not commit the statement the store gave up on")
            try await observer.close()

            #expect(try await store.claim(id, until: 5_000, now: 100), "the retry of a launch answered 503 was refused as used")
            #expect(try await store.claim(id, until: 5_000, now: 100) == false, "a launch granted twice")
        }
    }

    @Test("a table created before rows carried their statement gains the attempt column on the store's first claim; its old rows still refuse their replays")
    func tableFromAnEarlierVersionIsUpgraded() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let old = "'\\x00000000000000090000000000000009'::bytea"
        _ = try await psql(cluster.url, "CREATE TABLE webapp_launch_claims (replay_id BYTEA PRIMARY KEY, expires_at BIGINT NOT NULL); INSERT INTO webapp_launch_claims VALUES (\(old), 5000)")
        let store = try PostgresFixtures.store(url: cluster.url, claimTimeout: .seconds(4))
        try await withRunning(store) { () async throws in
            #expect(await Self.works(store))
            #expect(try await store.claim(ReplayID(high: 9, low: 9), until: 5_000, now: 100) == false, "an old row no longer refuses its replay")
        }
        let attempts = try await psql(cluster.url, "SELECT bool_and(attempt IS NOT NULL) FROM webapp_launch_claims WHERE replay_id <> \(old)")
        #expect(attempts.trimmingCharacters(in: .whitespacesAndNewlines) == "t", "the store's rows carry no attempt")
    }
}
