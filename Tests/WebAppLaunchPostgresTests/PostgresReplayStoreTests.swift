import Synchronization
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
@testable import WebAppLaunchPostgres
import WebAppLaunchServer
import WebAppLaunchTestSupport

@Suite("PostgreSQL replay store, shared by many verifier instances", .serialized, .traced)
struct PostgresReplayStoreTests {
    @Test("of 200 concurrent requests with one launch, spread over two instances sharing the database, exactly one is accepted")
    func exactlyOnceAcrossInstances() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let storeA = try PostgresFixtures.store(url: cluster.url)
        let storeB = try PostgresFixtures.store(url: cluster.url)
        let launch = try PostgresFixtures.launchPathAndQuery()
        let codes = try await withRunning(storeA, storeB) {
            try await withRunningServer(replayStore: storeA) { portA in
                try await withRunningServer(replayStore: storeB) { portB in
                    let urls = (0..<200).map { index in "http://127.0.0.1:\(index.isMultiple(of: 2) ? portA : portB)\(launch)" }
                    return try await statusCodes(of: urls)
                }
            }
        }
        #expect(codes.count == 200)
        #expect(codes.filter { $0 == 303 }.count == 1, "status codes: \(Dictionary(grouping: codes, by: { $0 }).mapValues(\.count))")
        #expect(codes.filter { $0 == 401 }.count == 199)
        #expect(try await claimCount(cluster.url) == 1)
    }

    @Test("300 concurrent claims of distinct launches on one store are all recorded, in batches, and each is refused the second time")
    func concurrentDistinctClaims() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let store = try PostgresFixtures.store(url: cluster.url)
        let ids = (0..<300).map { ReplayID(high: UInt64($0), low: 0x5eed) }
        let (first, second) = try await withRunning(store) {
            let claimAll: @Sendable () async throws -> [Bool] = {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for id in ids { group.addTask { try await store.claim(id, until: .max, now: 0) } }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
            }
            return (try await claimAll(), try await claimAll())
        }
        #expect(first.count == 300 && first.allSatisfy { $0 })
        #expect(second.count == 300 && second.allSatisfy { !$0 })
        #expect(try await claimCount(cluster.url) == 300)
    }

    @Test("with a one-connection pool, the statement slot creates the table on its own connection, claims stay exactly once, and a sweep gets the connection once the slot has left it")
    func oneConnectionPool() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let store = try PostgresFixtures.store(url: cluster.url, poolSize: 1, statementsInFlight: 1)
        let ids = (0..<50).map { ReplayID(high: 9, low: UInt64($0)) }
        let (first, second, swept) = try await withRunning(store) {
            let claimAll: @Sendable () async throws -> [Bool] = {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for id in ids { group.addTask { try await store.claim(id, until: 1_000, now: 0) } }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
            }
            return (try await claimAll(), try await claimAll(), try await store.sweep(now: 2_000))
        }
        #expect(first.count == 50 && first.allSatisfy { $0 })
        #expect(second.count == 50 && second.allSatisfy { !$0 })
        #expect(swept == 50)
    }

    @Test("a launch used on instance A is rejected on instance B")
    func usedOnARejectedOnB() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let storeA = try PostgresFixtures.store(url: cluster.url)
        let storeB = try PostgresFixtures.store(url: cluster.url)
        let launch = try PostgresFixtures.launchPathAndQuery()
        let (first, second) = try await withRunning(storeA, storeB) {
            let first = try await withRunningServer(replayStore: storeA) { port in try await statusCodes(of: ["http://127.0.0.1:\(port)\(launch)"]) }
            let second = try await withRunningServer(replayStore: storeB) { port in try await statusCodes(of: ["http://127.0.0.1:\(port)\(launch)"]) }
            return (first, second)
        }
        #expect(first == [303])
        #expect(second == [401])
    }

    @Test("the nonce is stored as its keyed hash, never in clear")
    func storesKeyedHashOnly() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let store = try PostgresFixtures.store(url: cluster.url)
        let token = try PostgresFixtures.signer.launchToken(for: "healthmagazin", user: PostgresFixtures.user)
        let launch = try LaunchVerifier(keyring: PostgresFixtures.keyring, app: PostgresFixtures.app).verify(token: token, now: Date())
        let claimed = try await withRunning(store) { try await store.claim(launch.replayID, until: launch.replayDeadline, now: 0) }
        #expect(claimed)
        let dump = try await psql(cluster.url, "SELECT encode(replay_id, 'hex') FROM webapp_launch_claims")
        let nonceHex = launch.header.nonce.map { String(format: "%02x", $0) }.joined()
        #expect(dump.contains(launch.replayID.hex))
        #expect(!dump.contains(nonceHex))
    }

    @Test("expired rows are swept and live ones kept")
    func sweepsExpiredRows() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let store = try PostgresFixtures.store(url: cluster.url)
        try await withRunning(store) { () async throws in
            for index in 0..<10 {
                let id = ReplayID(high: 7, low: UInt64(index))
                #expect(try await store.claim(id, until: index < 6 ? 1_000 : 5_000, now: 900))
            }
            #expect(try await claimCount(cluster.url) == 10)
            #expect(try await store.sweep(now: 2_000) == 6)
            #expect(try await claimCount(cluster.url) == 4)
            #expect(try await store.claim(ReplayID(high: 7, low: 9), until: 5_000, now: 2_000) == false)
        }
    }

    @Test("with PostgreSQL stopped every launch gets 503 and none is accepted; after a restart launches succeed again")
    func outageFailsClosedAndRecovers() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let store = try PostgresFixtures.store(url: cluster.url, claimTimeout: .milliseconds(1500))
        try await withRunning(store) { try await withRunningServer(replayStore: store) { port in
            let before = try await statusCodes(of: [try "http://127.0.0.1:\(port)\(PostgresFixtures.launchPathAndQuery())"])
            #expect(before == [303])

            try await cluster.stop()
            let urls = try (0..<20).map { _ in "http://127.0.0.1:\(port)\(try PostgresFixtures.launchPathAndQuery())" }
            let during = try await statusCodes(of: urls)
            #expect(during.count == 20)
            #expect(during.allSatisfy { $0 == 503 })
            #expect(!during.contains(303))

            try await cluster.restart()
            var recovered = false
            let giveUp = ContinuousClock.now + .seconds(30)
            for _ in 0..<40 where !recovered && ContinuousClock.now < giveUp {
                let code = try await statusCodes(of: ["http://127.0.0.1:\(port)\(try PostgresFixtures.launchPathAndQuery())"])
                recovered = code == [303]
                if !recovered {
                    #expect(code == [503])
                    try await Task.sleep(for: .milliseconds(250))
                }
            }
            #expect(recovered)
            let health = try await statusCodes(of: ["http://127.0.0.1:\(port)/healthz"])
            #expect(health == [200])
        } }
    }

    @Test("a database that stops answering mid-query makes a claim fail with ReplayStoreError.unavailable at its deadline, and the store recovers")
    func hungQueryIsCancelledAtTheDeadline() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let store = try PostgresFixtures.store(url: cluster.url, claimTimeout: .milliseconds(800))
        try await withRunning(store) { () async throws in
            // A first claim opens a pooled connection and creates the table.
            #expect(try await store.claim(ReplayID(high: 1, low: 1), until: 5_000, now: 100))
            let processes = try cluster.serverProcesses()
            #expect(processes.count >= 2, "the postmaster and at least one backend")
            for pid in processes { kill(pid, SIGSTOP) }
            let started = ContinuousClock.now
            await #expect {
                try await store.claim(ReplayID(high: 1, low: 2), until: 5_000, now: 100)
            } throws: { error in
                (error as? ReplayStoreError)?.code == .unavailable
            }
            let waited = ContinuousClock.now - started
            for pid in processes { kill(pid, SIGCONT) }
            #expect(waited < .seconds(2), "the deadline ends the claim: it does not wait for the database (\(waited))")
            var recovered = false
            for attempt in 0..<20 where !recovered {
                recovered = (try? await store.claim(ReplayID(high: 1, low: UInt64(10 + attempt)), until: 5_000, now: 100)) == true
                if !recovered { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(recovered)
        }
    }

    @Test("stopped while PostgreSQL is down and claims are waiting, the store returns within its deadlines and grants nothing")
    func stopsPromptlyDuringAnOutage() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let store = try PostgresFixtures.store(url: cluster.url, claimTimeout: .milliseconds(500))
        let stopped = Atomic<Bool>(false)
        let running = Task {
            await store.run()
            stopped.store(true, ordering: .releasing)
        }
        #expect(try await store.claim(ReplayID(high: 2, low: 1), until: 5_000, now: 100))
        try await cluster.stop()
        let outage = Task {
            await withTaskGroup(of: Bool.self) { group in
                for n in 0..<12 {
                    group.addTask { (try? await store.claim(ReplayID(high: 2, low: UInt64(10 + n)), until: 5_000, now: 100)) == true }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        try await Task.sleep(for: .milliseconds(150))  // the claims wait in the queue or in their statements
        running.cancel()
        // Bounded: 60 × 100 ms. A statement waiting on a dead pool must not hold run(), and with
        // it the server's shutdown, beyond the claims' deadlines.
        for _ in 0..<60 where !stopped.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(100)) }
        let returned = stopped.load(ordering: .acquiring)
        #expect(returned, "run() did not return within 6 s of being cancelled")
        #expect(await outage.value == 0, "a claim was granted while the database was down")
    }

    @Test("/readyz answers 200 while the store claims, 503 once claims fail with PostgreSQL stopped, and 200 again once it is back (a probe claim finds the way back, with no launch needed)")
    func readinessFollowsTheClaimPath() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let store = try PostgresFixtures.store(url: cluster.url, claimTimeout: .milliseconds(800))
        try await withRunning(store) { try await withRunningServer(replayStore: store) { port in
            let readyz = "http://127.0.0.1:\(port)/readyz"
            #expect(try await statusCodes(of: [try "http://127.0.0.1:\(port)\(PostgresFixtures.launchPathAndQuery())"]) == [303])
            #expect(try await statusCodes(of: [readyz]) == [200])

            try await cluster.stop()
            #expect(try await statusCodes(of: [try "http://127.0.0.1:\(port)\(PostgresFixtures.launchPathAndQuery())"]) == [503])
            #expect(try await statusCodes(of: [readyz]) == [503], "ready while every claim fails")
            #expect(try await statusCodes(of: ["http://127.0.0.1:\(port)/healthz"]) == [200], "liveness is not readiness")

            try await cluster.restart()
            var ready = false
            for _ in 0..<60 where !ready {
                ready = try await statusCodes(of: [readyz]) == [200]
                if !ready { try await Task.sleep(for: .milliseconds(250)) }
            }
            #expect(ready, "not ready again within 15 s of PostgreSQL coming back")
        } }
    }

    @Test("a database whose commits are asynchronous (synchronous_commit=off for the store's role) is refused: every claim 503, not ready; a store allowed asynchronous commits (development) claims")
    func asynchronousCommitIsRefused() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        _ = try await psql(cluster.url, "ALTER ROLE postgres SET synchronous_commit = off")
        let strict = try PostgresFixtures.store(url: cluster.url, claimTimeout: .seconds(1))
        let lenient = try PostgresFixtures.store(url: cluster.url, allowsAsynchronousCommit: true)
        try await withRunning(strict, lenient) { () async throws in
            await #expect {
                try await strict.claim(ReplayID(high: 4, low: 1), until: 5_000, now: 100)
            } throws: { error in
                (error as? ReplayStoreError)?.code == .unavailable
            }
            #expect(await strict.readiness() == false)
            #expect(try await lenient.claim(ReplayID(high: 4, low: 2), until: 5_000, now: 100))
            #expect(await lenient.readiness())
        }
        #expect(try await claimCount(cluster.url) >= 1)
        #expect(try await psql(cluster.url, "SELECT COUNT(*) FROM webapp_launch_claims WHERE replay_id = decode('0000000000000004' || '0000000000000001', 'hex')").trimmingCharacters(in: .whitespacesAndNewlines) == "0", "the refused claim was recorded")
    }

    @Test("without sslmode, TLS is required for any database host but loopback", arguments: [
        (nil, "db.example", "require"), (nil, "10.0.0.5", "require"), (nil, "127.0.0.1", "prefer"), (nil, "localhost", "prefer"),
        ("disable", "db.example", "disable"), ("prefer", "db.example", "prefer"), ("require", "127.0.0.1", "require"),
    ] as [(String?, String, String)])
    func tlsDefault(sslmode: String?, host: String, expected: String) throws {
        #expect(try PostgresReplayStore.sslMode(named: sslmode, host: host) == expected)
    }

    @Test("a malformed database URL is refused with invalid_configuration, without echoing the password", arguments: [
        "mysql://user:s3cret@127.0.0.1/db", "postgres://:s3cret@127.0.0.1/db", "postgres://user:s3cret@/db",
        "postgres://user:s3cret@127.0.0.1/db?sslmode=bogus",
    ])
    func malformedURL(url: String) {
        #expect {
            try PostgresReplayStore(configuration: .init(url: url), logger: .init(label: "t"))
        } throws: { error in
            (error as? ReplayStoreError)?.code == .invalidConfiguration && !String(describing: error).contains("s3cret")
        }
    }
}
