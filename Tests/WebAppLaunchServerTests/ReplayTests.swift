import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport

@Suite("A launch opens a session exactly once")
struct ReplayTests {
    @Test("the same launch presented twice is accepted once, then refused as already_used", arguments: [
        (Transport.get, Transport.get), (.get, .post), (.post, .get), (.post, .post),
    ])
    func secondPresentationIsRefused(first: Transport, second: Transport) async throws {
        let app = Fixtures.magazin
        let token = Fixtures.token(for: app)
        let server = try TestServer()
        try await server.test { client in
            let accepted = try await client.launch(token, at: app, via: first, json: true)
            #expect(accepted.status == .seeOther)
            let replayed = try await client.launch(token, at: app, via: second, json: true)
            #expect(replayed.status == .unauthorized)
            #expect(replayed.setCookies.isEmpty)
            #expect(replayed.jsonObject?["error"] == "already_used")
        }
        #expect(server.logs.lines("launch.rejected", where: "code", is: "already_used").count == 1)
        #expect(server.logs.lines("launch.accepted", where: "app", is: "healthmagazin").count == 1)
    }

    @Test("a replay is refused even while the first session is live, and does not disturb that session")
    func replayDoesNotDisturbSession() async throws {
        let app = Fixtures.magazin
        let token = Fixtures.token(for: app)
        try await TestServer().test { client in
            let cookie = try await client.sessionCookie(for: token, at: app)
            let replayed = try await client.execute(
                uri: "/apps/healthmagazin?launch=\(token)", method: .get,
                headers: requestHeaders(cookie: cookie, json: true)
            )
            #expect(replayed.status == .unauthorized)
            #expect(replayed.jsonObject?["error"] == "already_used")
            #expect(try await client.get("/apps/healthmagazin", cookie: cookie).status == .ok)
        }
    }

    @Test("fifty concurrent requests with one launch through the router yield exactly one 303")
    func concurrentThroughRouter() async throws {
        let token = Fixtures.token(for: Fixtures.magazin)
        let server = try TestServer()
        let statuses = try await server.test { client in
            try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await client.launch(token, at: Fixtures.magazin, via: .get, json: true).status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
        }
        #expect(statuses.count == 50)
        #expect(statuses.filter { $0 == .seeOther }.count == 1)
        #expect(statuses.filter { $0 == .unauthorized }.count == 49)
        #expect(server.logs.lines("launch.rejected", where: "code", is: "already_used").count == 49)
    }

    @Test("fifty concurrent clients with one launch over a real socket get exactly one 303 and one cookie")
    func concurrentOverSocket() async throws {
        let token = Fixtures.token(for: Fixtures.magazin)
        let server = try TestServer()
        let responses = try await server.test(.live) { client in
            let port = try #require(client.port)
            return try await withThrowingTaskGroup(of: (HTTPResponse.Status, Bool, String?).self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await TestClient.withClient(host: "localhost", port: port) { connection in
                            let response = try await connection.get("/apps/healthmagazin?launch=\(token)", headers: [.accept: "application/json"])
                            let body = response.body.map { String(buffer: $0) }
                            return (response.status, !response.headers[values: .setCookie].isEmpty, body)
                        }
                    }
                }
                return try await group.reduce(into: [(HTTPResponse.Status, Bool, String?)]()) { $0.append($1) }
            }
        }
        #expect(responses.count == 50)
        let accepted = responses.filter { $0.0 == .seeOther }
        #expect(accepted.count == 1)
        #expect(accepted.allSatisfy { $0.1 }, "the accepted response carries the cookie")
        let refused = responses.filter { $0.0 == .unauthorized }
        #expect(refused.count == 49)
        #expect(refused.allSatisfy { !$0.1 && $0.2?.contains(#""error":"already_used""#) == true })
    }
}
