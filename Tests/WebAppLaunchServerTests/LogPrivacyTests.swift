import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport

@Suite("Logs name the app and the precise code, never a token, a name, a KVNR or a cookie")
struct LogPrivacyTests {
    @Test("a full run of accepted, replayed, rejected and failed launches leaves no personal data or secret in the logs (through the router, and over a socket, where GET launches are answered on the event loop)",
          arguments: [false, true])
    func logsCarryNoPersonalData(overSocket: Bool) async throws {
        let logs = LogCapture()
        let token = Fixtures.token(for: Fixtures.magazin)
        let signedToken = Fixtures.token(for: Fixtures.bonus, mode: .signed)
        let tampered = Fixtures.flippingBit(of: Fixtures.token(for: Fixtures.magazin), atByte: -1)
        let expiredToken = Fixtures.token(for: Fixtures.magazin, issuedAt: Fixtures.now - 3600)
        let unavailableToken = Fixtures.token(for: Fixtures.magazin)

        let server = try TestServer(logs: logs)
        let cookies = try await server.test(overSocket ? .live : .router) { client in
            let accepted = try await client.launch(token, at: Fixtures.magazin, via: .get)
            #expect(accepted.status == .seeOther)
            let cookie = try #require(accepted.sessionCookie?.value)
            #expect(try await client.get("/apps/healthmagazin", cookie: cookie).status == .ok)
            let bonus = try await client.launch(signedToken, at: Fixtures.bonus, via: .post)
            #expect(bonus.status == .seeOther)
            let bonusCookie = try #require(bonus.sessionCookie?.value)
            #expect(try await client.launch(token, at: Fixtures.magazin, via: .post).status == .unauthorized)
            #expect(try await client.launch(signedToken, at: Fixtures.bonus, via: .get).status == .unauthorized)
            #expect(try await client.launch(tampered, at: Fixtures.magazin, via: .get).status == .unauthorized)
            #expect(try await client.launch(expiredToken, at: Fixtures.magazin, via: .get).status == .unauthorized)
            #expect(try await client.launch(token, at: Fixtures.bonus, via: .get).status == .unauthorized)
            #expect(try await client.get("/apps/bonus?tenant=demo", cookie: cookie).status == .unauthorized)
            #expect(try await client.get("/apps/healthmagazin?launch=\(token)&x=\(Fixtures.user.kvnumber)").status == .unauthorized)
            return [cookie, bonusCookie]
        }
        try await TestServer(replayStore: FailingReplayStore(), logs: logs).test { client in
            let response = try await client.launch(unavailableToken, at: Fixtures.magazin, via: .get)
            #expect(response.status == .serviceUnavailable)
        }

        let text = logs.fullText
        #expect(!logs.all.isEmpty)
        var secrets = [
            token, signedToken, tampered, expiredToken, unavailableToken,
            Fixtures.user.accessToken, Fixtures.user.firstName, Fixtures.user.lastName, Fixtures.user.kvnumber,
            "Jürgen", "Großmann", "Quirin", "Zydeck",
        ] + cookies
        // Pieces of the tokens (their MACs) and of the cookies would be leaks as well.
        secrets += [token, signedToken, unavailableToken].map { String($0.suffix(43)) }
        secrets += cookies.map { String($0.suffix(32)) }
        for secret in secrets {
            #expect(!text.contains(secret), "the logs contain a secret or personal value")
        }

        // The logs are not simply empty: they carry what operators need.
        let gotLaunch = try #require(logs.lines("launch.accepted", where: "app", is: "healthmagazin").first)
        #expect((gotLaunch.metadata["hb.request.id"] == nil) == overSocket, "over a socket, the event loop logged the GET launch")
        #expect(logs.lines("launch.accepted", where: "app", is: "healthmagazin").count == 1)
        #expect(logs.lines("launch.accepted", where: "app", is: "bonus").count == 1)
        #expect(logs.all.filter { $0.message == "launch.accepted" }.allSatisfy { $0.metadata["kid"] == "current" && $0.metadata["launch"]?.count == 32 })
        for code in ["already_used", "bad_signature", "expired", "no_session", "unexpected_parameters"] {
            #expect(!logs.lines("launch.rejected", where: "code", is: code).isEmpty, "the log names \(code)")
        }
        #expect(logs.lines("launch.rejected", where: "code", is: "already_used").count == 2)
        #expect(logs.all.contains { $0.message == "launch.replay_store_unavailable" && $0.metadata["app"] == "healthmagazin" })
    }

    @Test("a replay is logged with the same launch id as its acceptance, so the two can be correlated")
    func replayCorrelatesWithAcceptance() async throws {
        let server = try TestServer()
        let token = Fixtures.token(for: Fixtures.magazin)
        try await server.test { client in
            _ = try await client.launch(token, at: Fixtures.magazin, via: .get)
            _ = try await client.launch(token, at: Fixtures.magazin, via: .get)
        }
        let accepted = try #require(server.logs.all.first { $0.message == "launch.accepted" })
        let replayed = try #require(server.logs.lines("launch.rejected", where: "code", is: "already_used").first)
        #expect(accepted.metadata["launch"] != nil)
        #expect(accepted.metadata["launch"] == replayed.metadata["launch"])
    }
}
