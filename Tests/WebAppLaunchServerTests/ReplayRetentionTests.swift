import Foundation
import HTTPTypes
import HummingbirdTesting
import Synchronization
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport

/// Review finding 2: a used launch must stay used for as long as any conforming verifier
/// could still accept it, and a claim that waited on its store must not grant an expired launch.
@Suite("A used launch stays used while any verifier could accept it, and a slow claim never grants an expired launch")
struct ReplayRetentionTests {
    /// A store that records the deadlines it is asked for and, like a slow database, lets
    /// time pass while it answers.
    final class SlowRecordingStore: ReplayStore {
        let inner = InMemoryReplayStore(capacity: 64)
        let clock: ManualClock
        let delay: TimeInterval
        let deadlines = Mutex<[UInt64]>([])

        init(clock: ManualClock, delay: TimeInterval) {
            self.clock = clock
            self.delay = delay
        }

        func claim(_ id: ReplayID, until deadline: UInt64, now: UInt64) async throws -> Bool {
            deadlines.withLock { $0.append(deadline) }
            clock.advance(by: .seconds(delay))
            return try inner.claim(id, until: deadline, now: now)
        }
    }

    /// The fixtures' launches live for the signer's default lifetime.
    static let lifetime: UInt64 = LaunchSigner.defaultLifetime

    @Test("the store is asked to keep a launch until exp + the largest allowed skew + the margin, whatever the local skew", arguments: [UInt64(0), 60, 600])
    func deadlineIgnoresLocalSkew(skew: UInt64) async throws {
        let clock = ManualClock()
        let store = SlowRecordingStore(clock: clock, delay: 0)
        var configuration = Fixtures.configuration()
        configuration.policy = VerificationPolicy(clockSkew: skew)
        let server = try TestServer(configuration: configuration, replayStore: store, clock: clock)
        let issuedAt = UnixSeconds.of(Fixtures.now)
        try await server.test { client async throws in
            #expect(try await client.launch(Fixtures.token(for: Fixtures.magazin), at: Fixtures.magazin, via: .get).status == .seeOther)
        }
        let expiry = issuedAt + Self.lifetime
        #expect(store.deadlines.withLock { $0 } == [expiry + ReplayRetention.maximumSkew + ReplayRetention.margin])
        #expect(ReplayRetention.maximumSkew >= 600, "at least the policy's own cap on --skew")
    }

    @Test("instance A (skew 0) uses a launch and sweeps; instance B (skew 600) on the same store still refuses it just before its own deadline")
    func largerSkewInstanceStillRefuses() async throws {
        let shared = InMemoryReplayStore(capacity: 64)
        let token = Fixtures.token(for: Fixtures.magazin)
        let clockA = ManualClock()
        var strict = Fixtures.configuration()
        strict.policy = VerificationPolicy(clockSkew: 0)
        try await TestServer(configuration: strict, replayStore: shared, clock: clockA).test { client async throws in
            #expect(try await client.launch(token, at: Fixtures.magazin, via: .get).status == .seeOther)
        }
        // Long after A's own exp + skew, the store sweeps; B's clock is at exp + 599 s, inside its skew.
        let late = UnixSeconds.of(Fixtures.now) + Self.lifetime + 599
        shared.sweep(now: late)
        let clockB = ManualClock(date: Date(timeIntervalSince1970: TimeInterval(late)))
        var lenient = Fixtures.configuration()
        lenient.policy = VerificationPolicy(clockSkew: 600)
        try await TestServer(configuration: lenient, replayStore: shared, clock: clockB).test { client async throws in
            let replayed = try await client.launch(token, at: Fixtures.magazin, via: .get, json: true)
            #expect(replayed.status == .unauthorized)
            #expect(replayed.jsonObject?["error"] == "already_used")
        }
    }

    @Test("a claim that takes the launch past exp + skew ends in a rejection as expired, not a session")
    func slowClaimCannotGrantExpiredLaunch() async throws {
        let clock = ManualClock()
        // Presented one second before its end; the store then takes two seconds.
        clock.advance(by: .seconds(Self.lifetime + 60 - 1))
        let store = SlowRecordingStore(clock: clock, delay: 2)
        let token = Fixtures.token(for: Fixtures.magazin)
        let server = try TestServer(replayStore: store, clock: clock)
        try await server.test { client async throws in
            let response = try await client.launch(token, at: Fixtures.magazin, via: .get, json: true)
            #expect(response.status == .unauthorized)
            #expect(response.setCookies.isEmpty)
            #expect(response.jsonObject?["error"] == "expired")
        }
        #expect(server.logs.lines("launch.rejected", where: "code", is: "expired").count == 1)
        #expect(store.deadlines.withLock { $0.count } == 1, "the launch was claimed: it stays used")
    }

    @Test("a claim that returns in time still opens the session")
    func timelyClaimSucceeds() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(Self.lifetime + 60 - 3))
        let store = SlowRecordingStore(clock: clock, delay: 2)
        try await TestServer(replayStore: store, clock: clock).test { client async throws in
            #expect(try await client.launch(Fixtures.token(for: Fixtures.magazin), at: Fixtures.magazin, via: .get).status == .seeOther)
        }
    }
}
