import AsyncHTTPClient
import Foundation
import NIOHTTP1
import Testing
import WebAppLaunch
import WebAppLaunchGate
import WebAppLaunchTestSupport
import WebAppRegistry

/// Real nginx (the configuration the gate prints) in front of the Python upstream, asking the
/// gate (auth_request mode, in this process) about every request.
@Suite("Gate: nginx auth_request in front of a Python upstream", .serialized)
struct GateNginxAuthRequestTests {
    /// Runs nginx + gate + upstream; `body` gets nginx's origin and a client.
    private func withNginx(
        upstreamPort: Int? = nil,
        passAccessToken: Bool = false,
        _ body: @Sendable (String, RegisteredURL, TestClient) async throws -> Void
    ) async throws {
        try await withNginxGate(upstreamPort: upstreamPort, adjust: { $0.passAccessToken = passAccessToken }) { nginx, publicURL, client in
            try await body(nginx.origin, publicURL, client)
        }
    }

    @Test("launch → 303 with the cookie from the gate → the page from the Python upstream with the identity intact")
    func launchThroughNginx() async throws {
        try await withNginx { origin, publicURL, client in
            let launchURL = try GateFixtures.launchURL(for: publicURL)
            #expect(launchURL.hasPrefix(origin + "/?launch="))
            let launch = try await client.send(launchURL)
            #expect(launch.status == 303)
            #expect(launch.headers["location"] == ["/"])
            let cookie = try #require(launch.sessionCookie)
            let reply = try await client.send(origin + "/articles?id=7", headers: [("Cookie", cookie)])
            #expect(reply.status == 200)
            #expect(reply.headers["x-upstream"] == ["python"])
            let echo = try reply.echo
            #expect(echo.identity["x-webapp-launch-first-name"] == "Jürgen Zoë")
            #expect(echo.identity["x-webapp-launch-last-name"] == "O'Brien-Groß")
            #expect(echo.identity["x-webapp-launch-kvnr"] == "A123456780")
            #expect(echo.identity["x-webapp-launch-subject"] == "A123456780")
            #expect(echo.identity["x-webapp-launch-access-token"] == nil)
            #expect(echo.values("Cookie").isEmpty)
            let again = try await client.send(launchURL)
            #expect(again.status == 401)
            #expect(again.body.contains("already_used"))
        }
    }

    @Test("a launch posted as a form is exchanged through nginx too")
    func formPostLaunch() async throws {
        try await withNginx { origin, publicURL, client in
            let launchURL = try GateFixtures.launchURL(for: publicURL)
            let token = String(launchURL.split(separator: "=", maxSplits: 1)[1])
            let reply = try await client.send(origin + "/", method: .POST, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array("launch=\(token)".utf8))
            #expect(reply.status == 303)
            #expect(reply.sessionCookie != nil)
        }
    }

    @Test("without a session nginx answers with the gate's 401 and the upstream is not asked")
    func noSession() async throws {
        try await withNginx { origin, _, client in
            let reply = try await client.send(origin + "/private")
            #expect(reply.status == 401)
            #expect(reply.headers["x-upstream"].isEmpty)
            #expect(reply.body.contains("no_session"))
        }
    }

    @Test(
        "spoofed identity headers through nginx never reach the upstream",
        arguments: [
            [("X-WebApp-Launch-Subject", "Z999999999")],
            [("x-webapp-launch-first-name", "Mallory"), ("X-WEBAPP-LAUNCH-KVNR", "Z1"), ("X-WebApp-Launch-KVNR", "Z2")],
            [("X-WebApp-Launch-Access-Token", "stolen")],
            [("X-WebApp-Launch-Role", "admin")],
        ]
    )
    func spoofedHeadersThroughNginx(spoofed: [(String, String)]) async throws {
        try await withNginx { origin, publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let reply = try await client.send(origin + "/", headers: spoofed + [("Cookie", cookie)])
            #expect(reply.status == 403)
            #expect(reply.headers["x-upstream"].isEmpty)
            // Underscore spellings are dropped by nginx itself; the request goes through clean.
            let underscored = try await client.send(origin + "/", headers: [("X_WebApp_Launch_Subject", "Z999999999"), ("Cookie", cookie)])
            #expect(underscored.status == 200)
            let echo = try underscored.echo
            #expect(echo.identity["x-webapp-launch-subject"] == "A123456780")
            #expect(!underscored.body.contains("Z999999999"))
        }
    }

    @Test("the access token reaches the upstream through nginx only when the gate passes it")
    func accessTokenThroughNginx() async throws {
        try await withNginx(passAccessToken: true) { origin, publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let echo = try await client.send(origin + "/", headers: [("Cookie", cookie)]).echo
            #expect(echo.identity["x-webapp-launch-access-token"] == "tok-abc/123+xyz=")
        }
    }

    @Test("the session cookie is removed by nginx; the app's own cookies pass")
    func sessionCookieThroughNginx() async throws {
        try await withNginx { origin, publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let echo = try await client.send(origin + "/", headers: [("Cookie", "theme=dark; \(cookie); lang=de")]).echo
            #expect(echo.values("Cookie") == ["theme=dark; lang=de"])
            let first = try await client.send(origin + "/", headers: [("Cookie", "\(cookie); lang=de")]).echo
            #expect(first.values("Cookie") == ["lang=de"])
        }
    }

    @Test("the gate's /auth answers 202 with the identity headers for a session and 401 without")
    func authEndpointDirectly() async throws {
        try await withGate(mode: .authRequest) { publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let original = [("X-Original-URI", "/articles?id=7"), ("X-Original-Method", "GET")]
            let accepted = try await client.send(publicURL.description + "auth", headers: original + [("Cookie", cookie)])
            #expect(accepted.status == 202)
            #expect(accepted.headers["X-WebApp-Launch-Last-Name"] == ["O%27Brien-Gro%C3%9F"])
            #expect(accepted.headers["X-WebApp-Launch-KVNR"] == ["A123456780"])
            #expect(accepted.headers["X-WebApp-Launch-Access-Token"].isEmpty)
            #expect(try await client.send(publicURL.description + "auth", headers: original).status == 401)
        }
    }

    @Test("with a redirect configured, /auth still answers 401 (nginx must see it); other paths at the gate redirect")
    func authEndpointIsExemptFromTheRedirect() async throws {
        try await withGate(mode: .authRequest, adjust: { $0.unauthenticatedRedirect = try! RedirectTarget("/start") }) { publicURL, client in
            let original = [("X-Original-URI", "/articles?id=7"), ("X-Original-Method", "GET")]
            let auth = try await client.send(publicURL.description + "auth", headers: original)
            #expect(auth.status == 401)
            #expect(auth.headers["location"].isEmpty)
            let page = try await client.send(publicURL.description + "articles")
            #expect(page.status == 303)
            #expect(page.headers["location"] == ["/start"])
            #expect(page.headers["cache-control"] == ["no-store"])
        }
    }

    @Test("the launch token never appears in nginx's access log")
    func noTokenInAccessLog() async throws {
        let upstream = try await EchoUpstream()
        let nginxPort = try freeLoopbackPort()
        let gatePort = try freeLoopbackPort()
        let appPort = upstream.port
        try await withGate(mode: .authRequest, gatePort: gatePort, publicPort: nginxPort) { publicURL, client in
            let nginx = try await Nginx(port: nginxPort, gatePort: gatePort, upstreamPort: appPort, publicURL: publicURL)
            let launchURL = try GateFixtures.launchURL(for: publicURL)
            #expect(try await client.send(launchURL).status == 303)
            try await Task.sleep(for: .milliseconds(200))
            let log = nginx.accessLog
            #expect(log.contains("GET / HTTP/1.1\" 303"))
            #expect(!log.contains("launch="))
        }
        withExtendedLifetime(upstream) {}
    }

    @Test("an upstream that is down gives 502 through nginx")
    func upstreamDownThroughNginx() async throws {
        let closedPort = try freeLoopbackPort()
        try await withNginx(upstreamPort: closedPort) { origin, publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let reply = try await client.send(origin + "/", headers: [("Cookie", cookie)])
            #expect(reply.status == 502)
        }
    }
}
