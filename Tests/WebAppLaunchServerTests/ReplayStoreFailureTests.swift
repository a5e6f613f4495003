import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport

@Suite("A replay store that cannot answer makes the server fail closed with 503")
struct ReplayStoreFailureTests {
    @Test("a valid launch with a failing store gets 503, no cookie and no redirect", arguments: Transport.allCases)
    func failingStoreGives503(transport: Transport) async throws {
        let store = FailingReplayStore()
        let server = try TestServer(replayStore: store)
        try await server.test { client in
            let response = try await client.launch(Fixtures.token(for: Fixtures.magazin), at: Fixtures.magazin, via: transport, json: true)
            #expect(response.status == .serviceUnavailable)
            #expect(response.setCookies.isEmpty)
            #expect(response.headers[.location] == nil)
            #expect(response.jsonObject?["error"] == "invalid")
            #expect(!response.everything.contains("replay_store"))
            #expect(!response.everything.contains("down"), "the store's own message stays in the server")
        }
        #expect(store.claimAttempts == 1)
        #expect(server.logs.all.contains { $0.level == .error && $0.metadata["app"] == "healthmagazin" })
        #expect(server.logs.all.contains { $0.metadata["code"] == "replay_store_unavailable" }, "the log names the precise code, as for every rejection")
        #expect(server.server.metrics.exposition().contains(#"code="replay_store_unavailable""#))
    }

    @Test("an HTML client sees a 'temporarily unavailable' page, not a success")
    func failingStoreHTMLPage() async throws {
        try await TestServer(replayStore: FailingReplayStore()).test { client in
            let response = try await client.launch(Fixtures.token(for: Fixtures.magazin), at: Fixtures.magazin, via: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(response.text.contains("Temporarily unavailable"))
            #expect(!response.text.contains(Fixtures.user.firstName))
        }
    }

    @Test("an invalid launch is refused before the store is asked, so a failing store still gives 401")
    func invalidLaunchNeverReachesStore() async throws {
        let store = FailingReplayStore()
        let token = Fixtures.flippingBit(of: Fixtures.token(for: Fixtures.magazin), atByte: -1)
        try await TestServer(replayStore: store).test { client in
            let response = try await client.launch(token, at: Fixtures.magazin, via: .get, json: true)
            #expect(response.status == .unauthorized)
        }
        #expect(store.claimAttempts == 0)
    }

    @Test("a full in-memory store answers 503 rather than forgetting a live launch")
    func fullInMemoryStore() async throws {
        // 16 shards of one id each: of 17 launches at least one lands in a full shard.
        let store = InMemoryReplayStore(capacity: 16)
        let tokens = (0..<17).map { _ in Fixtures.token(for: Fixtures.magazin) }
        try await TestServer(replayStore: store).test { client in
            var accepted: [String] = []
            var unavailable = 0
            for token in tokens {
                let response = try await client.launch(token, at: Fixtures.magazin, via: .get, json: true)
                switch response.status {
                case .seeOther: accepted.append(token)
                case .serviceUnavailable:
                    unavailable += 1
                    #expect(response.setCookies.isEmpty)
                default: Issue.record("unexpected status \(response.status)")
                }
            }
            #expect(unavailable >= 1)
            #expect(accepted.count + unavailable == 17)
            #expect(store.count() == accepted.count)
            for token in accepted {
                let replayed = try await client.launch(token, at: Fixtures.magazin, via: .get, json: true)
                #expect(replayed.jsonObject?["error"] == "already_used", "a live launch is never evicted")
            }
        }
    }
}
