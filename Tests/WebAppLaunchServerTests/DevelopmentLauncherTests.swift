import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WebAppLaunch
import WebAppLaunchServer
import WebAppLaunchTestSupport

/// The development server's launcher: the console asks it with a demo user's access token,
/// as the app asks its backend, and its `/v1` API answers for demo tokens only.
@Suite("The development console is a client of the launcher, whose identity provider vouches for demo tokens")
struct DevelopmentLauncherTests {
    static func launchRequest(token: String?, app: String = "healthmagazin") -> (HTTPFields, ByteBuffer) {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let token { headers[.authorization] = "Bearer " + token }
        return (headers, ByteBuffer(string: #"{"app":"\#(app)"}"#))
    }

    @Test("Open goes through the launcher: the launch is minted by the launcher service for the demo user's token")
    func consoleAsksTheLauncher() async throws {
        let server = try TestServer(configuration: DevelopmentConsoleTests.consoleConfiguration())
        try await server.test { client in
            let response = try await client.postConsoleForm("/console/launch", form: "user=zoe&app=bonus")
            #expect(response.status == .seeOther)
            let location = try #require(response.headers[.location])
            let verified = try LaunchVerifier(keyring: Fixtures.keyring, app: Fixtures.bonus).verify(url: location, now: server.clock.date)
            #expect(verified.claims.accessToken == "console-token-z")
            #expect(verified.claims.firstName == "Zoë")
        }
        #expect(server.logs.lines("launch.minted", where: "app", is: "bonus").count == 1)
        #expect(!server.logs.fullText.contains("console-token-z"))
        #expect(!server.logs.fullText.contains("B551029382"))
    }

    @Test("POST /v1/launches with a demo token mints that demo user's launch; any other token is 401")
    func launcherAPIForDemoTokens() async throws {
        let server = try TestServer(configuration: DevelopmentConsoleTests.consoleConfiguration())
        try await server.test { client in
            let (headers, body) = Self.launchRequest(token: "console-token-j")
            let minted = try await client.execute(uri: "/v1/launches", method: .post, headers: headers, body: body)
            #expect(minted.status == .created)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(minted.body.readableBytesView)) as? [String: Any])
            let url = try #require(object["url"] as? String)
            let verified = try LaunchVerifier(keyring: Fixtures.keyring, app: Fixtures.magazin).verify(url: url, now: server.clock.date)
            #expect(verified.claims.lastName == "Groß")
            #expect(verified.claims.kvnr.value == "M204198708")

            let (badHeaders, badBody) = Self.launchRequest(token: "not-a-demo-token")
            let refused = try await client.execute(uri: "/v1/launches", method: .post, headers: badHeaders, body: badBody)
            #expect(refused.status == .unauthorized)
            #expect(refused.headers[.wwwAuthenticate] == #"Bearer error="invalid_token""#)

            let catalogue = try await client.get("/v1/catalogue")
            #expect(catalogue.status == .ok)
            #expect(String(buffer: catalogue.body).contains(#""id":"healthmagazin""#))
        }
    }

    @Test("With production keys there is no development launcher")
    func noLauncherWithProductionKeys() async throws {
        let server = try TestServer(configuration: DevelopmentConsoleTests.consoleConfiguration(keyring: DevelopmentConsoleTests.productionKeyring))
        try await server.test { client in
            let catalogue = try await client.get("/v1/catalogue")
            #expect(catalogue.status == .notFound)
            let (headers, body) = Self.launchRequest(token: "console-token-j")
            let launch = try await client.execute(uri: "/v1/launches", method: .post, headers: headers, body: body)
            #expect(launch.status == .notFound)
        }
    }
}
