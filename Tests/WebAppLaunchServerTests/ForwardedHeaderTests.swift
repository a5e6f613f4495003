import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport
import WebAppRegistry

@Suite("The audience comes from configuration, never from Host or X-Forwarded-* headers")
struct ForwardedHeaderTests {
    /// What an attacker controlling a proxy or the request could claim.
    static let spoofedHeaders: [(String, String)] = [
        ("Host", "evil.example"),
        ("X-Forwarded-Host", "evil.example"),
        ("X-Forwarded-Proto", "https"),
        ("X-Forwarded-Port", "443"),
        ("Forwarded", "host=evil.example;proto=https"),
    ]

    static func headers(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields[HTTPField.Name(name)!] = value }
        fields[.accept] = "application/json"
        return fields
    }

    @Test("a launch for the configured public URL is accepted whatever Host and X-Forwarded-* say")
    func configuredAudienceWins() async throws {
        let server = try TestServer()
        try await server.test { client in
            let response = try await client.execute(
                uri: Fixtures.launchTarget(for: Fixtures.magazin),
                method: .get,
                headers: Self.headers(Self.spoofedHeaders)
            )
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/apps/healthmagazin")
        }
    }

    @Test("a launch minted for another origin with the same path is rejected even when Host and X-Forwarded-* name that origin")
    func spoofedHostDoesNotWidenTheAudience() async throws {
        let foreign = try WebApp(id: "healthmagazin", title: "Lookalike", url: RegisteredURL("https://evil.example/apps/healthmagazin"))
        let signer = try LaunchSigner(keyring: Fixtures.keyring, registry: try Registry(apps: [foreign]))
        let token = try signer.launchToken(for: "healthmagazin", user: Fixtures.user, now: Fixtures.now)
        let server = try TestServer()
        try await server.test { client in
            let response = try await client.execute(
                uri: "/apps/healthmagazin?launch=\(token)",
                method: .get,
                headers: Self.headers(Self.spoofedHeaders)
            )
            #expect(response.status == .unauthorized)
            #expect(response.headers[.setCookie] == nil)
        }
        #expect(server.logs.lines("launch.rejected", where: "code", is: "wrong_audience").count == 1)
    }
}
