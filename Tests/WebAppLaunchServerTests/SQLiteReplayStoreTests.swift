import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchSQLite
import WebAppLaunchTestSupport

@Suite("The SQLite replay store claims each launch once and remembers it across restarts")
struct SQLiteReplayStoreTests {
    static let now: UInt64 = 1_795_000_000
    static func id(_ n: UInt64) -> ReplayID { ReplayID(high: 0xABCD, low: n) }

    @Test("a nonce claimed before a restart is still refused after it")
    func survivesRestart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("replay.sqlite")

        let before = try await SQLiteReplayStore.open(path: path)
        #expect(try await before.claim(Self.id(1), until: Self.now + 120, now: Self.now))
        #expect(try await before.claim(Self.id(1), until: Self.now + 120, now: Self.now) == false)
        try await before.close()

        let after = try await SQLiteReplayStore.open(path: path)
        #expect(try await after.claim(Self.id(1), until: Self.now + 120, now: Self.now + 1) == false)
        #expect(try await after.claim(Self.id(2), until: Self.now + 120, now: Self.now + 1))
        #expect(try await after.count() == 2)
        try await after.close()
    }

    @Test("a launch accepted by one server is refused as already_used by a new server on the same file")
    func serverRestartKeepsReplayProtection() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("replay.sqlite")
        let token = Fixtures.token(for: Fixtures.magazin)

        let firstStore = try await SQLiteReplayStore.open(path: path)
        let first = try TestServer(replayStore: firstStore)
        try await first.test { client in
            let response = try await client.launch(token, at: Fixtures.magazin, via: .get)
            #expect(response.status == .seeOther)
        }
        try await firstStore.close()

        let secondStore = try await SQLiteReplayStore.open(path: path)
        let second = try TestServer(replayStore: secondStore)
        try await second.test { client in
            let replayed = try await client.launch(token, at: Fixtures.magazin, via: .post, json: true)
            #expect(replayed.status == .unauthorized)
            #expect(replayed.jsonObject?["error"] == "already_used")
            #expect(replayed.setCookies.isEmpty)
        }
        #expect(second.logs.lines("launch.rejected", where: "code", is: "already_used").count == 1)
        try await secondStore.close()
    }

    @Test("WebAppServer.make opens the configured SQLite file, and the server it builds accepts a launch once")
    func madeFromConfiguration() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = Fixtures.configuration()
        configuration.replayStore = .sqlite(path: directory.path("made.sqlite"))
        configuration.clock = { Fixtures.now }
        let server = try await WebAppServer.make(configuration: configuration)
        let token = Fixtures.token(for: Fixtures.magazin)
        try await server.makeApplication().test(.router) { client in
            let accepted = try await client.launch(token, at: Fixtures.magazin, via: .get)
            let replayed = try await client.launch(token, at: Fixtures.magazin, via: .get)
            #expect(accepted.status == .seeOther)
            #expect(replayed.status == .unauthorized)
            #expect(try await (server.replayStore as? SQLiteReplayStore)?.count() == 1)
        }
        #expect(server.replayStore is SQLiteReplayStore)
        // The application's service group closed the file on shutdown; closing again is harmless.
        try await (server.replayStore as? SQLiteReplayStore)?.close()
    }

    @Test("of fifty concurrent claims of one id, exactly one succeeds")
    func exactlyOnceUnderConcurrency() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteReplayStore.open(path: directory.path("race.sqlite"))
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 {
                group.addTask { try await store.claim(Self.id(7), until: Self.now + 120, now: Self.now) }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 50)
        #expect(results.filter { $0 }.count == 1)
        #expect(try await store.count() == 1)
        try await store.close()
    }

    @Test("fifty concurrent requests with one launch on an SQLite-backed server yield exactly one 303")
    func exactlyOnceThroughServer() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteReplayStore.open(path: directory.path("server-race.sqlite"))
        let token = Fixtures.token(for: Fixtures.bonus)
        let statuses = try await TestServer(replayStore: store).test { client in
            try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<50 {
                    group.addTask { try await client.launch(token, at: Fixtures.bonus, via: index.isMultiple(of: 2) ? .get : .post).status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
        }
        #expect(statuses.filter { $0 == .seeOther }.count == 1)
        #expect(statuses.filter { $0 == .unauthorized }.count == 49)
        try await store.close()
    }

    @Test("expired rows are deleted by a later claim, and live rows are kept")
    func expiredRowsAreSwept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteReplayStore.open(path: directory.path("sweep.sqlite"))
        #expect(try await store.claim(Self.id(1), until: Self.now + 5, now: Self.now))
        #expect(try await store.claim(Self.id(2), until: Self.now + 500, now: Self.now))
        #expect(try await store.count() == 2)
        #expect(try await store.claim(Self.id(3), until: Self.now + 500, now: Self.now + 60))
        #expect(try await store.count() == 2)
        #expect(try await store.claim(Self.id(2), until: Self.now + 500, now: Self.now + 60) == false)
        try await store.close()
    }

    @Test("a store whose file cannot be created refuses to open with an unavailable error")
    func unopenablePath() async throws {
        let error = await #expect(throws: ReplayStoreError.self) {
            _ = try await SQLiteReplayStore.open(path: "/nonexistent-directory-\(UUID().uuidString)/replay.sqlite")
        }
        #expect(error?.code == .unavailable)
    }
}

@Suite("Every replay store reports the same failure with the same error")
struct ReplayStoreErrorTests {
    @Test("a SQLite store that can no longer reach its file throws ReplayStoreError.unavailable, as PostgreSQL does")
    func sqliteFailureIsUnavailable() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteReplayStore.open(path: directory.path("closed.sqlite"))
        try await store.close()
        await #expect {
            try await store.claim(ReplayID(high: 9, low: 9), until: 2_000, now: 1_000)
        } throws: { error in
            (error as? ReplayStoreError)?.code == .unavailable
        }
    }
}
