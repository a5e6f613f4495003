import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport

@Suite("Health and metrics endpoints report what operators need, and nothing personal")
struct OperationalEndpointsTests {
    /// Prometheus text as series → value (`name{labels}` → number).
    static func samples(_ exposition: String) -> [String: Double] {
        PrometheusSamples.parse(exposition)
    }

    @Test("/healthz answers 200 ok without a launch or cookie")
    func healthz() async throws {
        try await TestServer().test { client in
            let response = try await client.get("/healthz")
            #expect(response.status == .ok)
            #expect(response.text.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
            #expect(response.setCookies.isEmpty)
        }
    }

    @Test("/readyz answers 200 ready without a launch or cookie when the replay store is ready (an in-memory store always is)")
    func readyz() async throws {
        try await TestServer().test { client in
            let response = try await client.get("/readyz")
            #expect(response.status == .ok)
            #expect(response.text == "ready\n")
            #expect(response.setCookies.isEmpty)
        }
    }

    @Test("/metrics counts accepted launches by app, rejections by app and precise code, and the replay store's size as its sweeper saw it")
    func metricsAfterLaunches() async throws {
        let magazinToken = Fixtures.token(for: Fixtures.magazin)
        let bonusToken = Fixtures.token(for: Fixtures.bonus)
        let tampered = Fixtures.flippingBit(of: Fixtures.token(for: Fixtures.magazin), atByte: -1)
        let server = try TestServer()
        try await server.test { client async throws in
            #expect(try await client.launch(magazinToken, at: Fixtures.magazin, via: .get).status == .seeOther)
            #expect(try await client.launch(bonusToken, at: Fixtures.bonus, via: .post).status == .seeOther)
            #expect(try await client.launch(magazinToken, at: Fixtures.magazin, via: .get).status == .unauthorized)
            #expect(try await client.launch(magazinToken, at: Fixtures.magazin, via: .post).status == .unauthorized)
            #expect(try await client.launch(tampered, at: Fixtures.magazin, via: .get).status == .unauthorized)
            #expect(try await client.get("/apps/bonus?tenant=demo").status == .unauthorized)
            #expect(try await client.get("/metrics").status == .notFound, "metrics are never on the public listener")
        }
        (server.server.replayStore as? InMemoryReplayStore)?.sweep(now: UnixSeconds.of(Fixtures.now))
        try await Application(router: server.server.makeMetricsRouter()).test(.router) { client async throws in
            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = response.text
            let samples = Self.samples(text)
            #expect(samples[#"webapp_launch_accepted_total{app="healthmagazin"}"#] == 1)
            #expect(samples[#"webapp_launch_accepted_total{app="bonus"}"#] == 1)
            #expect(samples[#"webapp_launch_rejected_total{app="healthmagazin",code="already_used"}"#] == 2)
            #expect(samples[#"webapp_launch_rejected_total{app="healthmagazin",code="bad_signature"}"#] == 1)
            #expect(samples[#"webapp_launch_rejected_total{app="bonus",code="no_session"}"#] == 1)
            #expect(samples["webapp_launch_replay_store_size"] == 2)
            #expect(text.contains("webapp_launch_verify_duration_seconds"))
            for secret in [Fixtures.user.firstName, Fixtures.user.lastName, Fixtures.user.kvnumber, Fixtures.user.accessToken, magazinToken] {
                #expect(!text.contains(secret))
            }
        }
    }

    @Test("two servers in one process keep separate counts")
    func metricsArePerServer() async throws {
        let first = try TestServer()
        let second = try TestServer()
        try await first.test { client in
            _ = try await client.launch(Fixtures.token(for: Fixtures.magazin), at: Fixtures.magazin, via: .get)
        }
        #expect(Self.samples(first.server.metrics.exposition())[#"webapp_launch_accepted_total{app="healthmagazin"}"#] == 1)
        #expect(Self.samples(second.server.metrics.exposition())[#"webapp_launch_accepted_total{app="healthmagazin"}"#] == nil)
    }
}
