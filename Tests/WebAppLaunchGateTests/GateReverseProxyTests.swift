import AsyncHTTPClient
import Foundation
import NIOHTTP1
import Testing
import WebAppLaunch
import WebAppLaunchGate
import WebAppLaunchTestSupport
import WebAppRegistry

/// The gate as a reverse proxy in front of a Python standard-library upstream that echoes
/// what it receives: real sockets on both sides.
@Suite("Gate: reverse proxy in front of a Python upstream", .serialized)
struct GateReverseProxyTests {
    @Test("a launch becomes a session; the upstream gets the identity, umlauts and apostrophes intact, every header ASCII")
    func identityArrivesIntact() async throws {
        let upstream = try await EchoUpstream()
        try await withGate(mode: .reverseProxy(upstream: try GateUpstream(upstream.origin))) { publicURL, client in
            let launch = try await client.send(try GateFixtures.launchURL(for: publicURL))
            #expect(launch.status == 303)
            #expect(launch.headers["location"] == ["/"])
            let cookie = try #require(launch.sessionCookie)
            let reply = try await client.send(publicURL.description + "articles?id=7", headers: [("Cookie", cookie)])
            #expect(reply.status == 200)
            #expect(reply.headers["x-upstream"] == ["python"])
            let echo = try reply.echo
            #expect(echo.identity["x-webapp-launch-first-name"] == "Jürgen Zoë")
            #expect(echo.identity["x-webapp-launch-last-name"] == "O'Brien-Groß")
            #expect(echo.identity["x-webapp-launch-kvnr"] == "A123456780")
            #expect(echo.identity["x-webapp-launch-subject"] == "A123456780")
            #expect(echo.identity["x-webapp-launch-app"] == "healthmagazin")
            #expect(echo.values("X-WebApp-Launch-Last-Name") == ["O%27Brien-Gro%C3%9F"])
            #expect(echo.values("X-WebApp-Launch-First-Name") == ["J%C3%BCrgen%20Zo%C3%AB"])
            for (name, value) in echo.headers {
                #expect((name + value).utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "header \(name) is not ASCII")
            }
            let path = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
            #expect(path?["path"] as? String == "/articles?id=7")
        }
    }

    @Test("a launch is exchanged once: the second use is refused")
    func launchIsUsedOnce() async throws {
        let upstream = try await EchoUpstream()
        try await withGate(mode: .reverseProxy(upstream: try GateUpstream(upstream.origin))) { publicURL, client in
            let url = try GateFixtures.launchURL(for: publicURL)
            #expect(try await client.send(url).status == 303)
            let again = try await client.send(url)
            #expect(again.status == 401)
            #expect(again.body.contains("already_used"))
        }
    }

    @Test(
        "spoofed identity headers from the client never reach the upstream",
        arguments: [
            [("X-WebApp-Launch-Subject", "Z999999999")],
            [("x-webapp-launch-first-name", "Mallory"), ("X-WEBAPP-LAUNCH-LAST-NAME", "Evil")],
            [("X-WebApp-Launch-KVNR", "Z999999999"), ("X-WebApp-Launch-KVNR", "Z888888888"), ("x-WebApp-launch-kvnr", "Z7")],
            [("X-WebApp-Launch-Access-Token", "stolen"), ("X-WebApp-Launch-Admin", "true")],
            [("Connection", "X-WebApp-Launch-Subject"), ("X-WebApp-Launch-App", "other-app")],
        ]
    )
    func spoofedHeadersAreRemoved(spoofed: [(String, String)]) async throws {
        let upstream = try await EchoUpstream()
        try await withGate(mode: .reverseProxy(upstream: try GateUpstream(upstream.origin))) { publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let reply = try await client.send(publicURL.description, headers: spoofed + [("Cookie", cookie)])
            let echo = try reply.echo
            #expect(echo.identityNames.sorted() == [
                "x-webapp-launch-app", "x-webapp-launch-first-name", "x-webapp-launch-kvnr",
                "x-webapp-launch-last-name", "x-webapp-launch-subject",
            ])
            #expect(echo.identity["x-webapp-launch-subject"] == "A123456780")
            #expect(echo.identity["x-webapp-launch-kvnr"] == "A123456780")
            #expect(echo.identity["x-webapp-launch-first-name"] == "Jürgen Zoë")
            #expect(echo.identity["x-webapp-launch-app"] == "healthmagazin")
            #expect(!reply.body.contains("Mallory") && !reply.body.contains("Z999999999") && !reply.body.contains("stolen"))
        }
    }

    @Test("without a session the gate answers 401 and the request never reaches the upstream, spoofed headers or not")
    func noSessionIsRefused() async throws {
        let upstream = try await EchoUpstream()
        try await withGate(mode: .reverseProxy(upstream: try GateUpstream(upstream.origin))) { publicURL, client in
            let reply = try await client.send(publicURL.description, headers: [("X-WebApp-Launch-Subject", "A123456780")])
            #expect(reply.status == 401)
            #expect(reply.headers["x-upstream"].isEmpty)
            #expect(reply.headers["content-security-policy"].first?.contains("default-src 'none'") == true)
            let forged = try await client.send(publicURL.description, headers: [("Cookie", "webapp_launch_session=forged")])
            #expect(forged.status == 401)
        }
    }

    @Test("with a redirect configured, a browser without a session is sent there")
    func noSessionRedirects() async throws {
        let upstream = try await EchoUpstream()
        try await withGate(
            mode: .reverseProxy(upstream: try GateUpstream(upstream.origin)),
            adjust: { $0.unauthenticatedRedirect = try! RedirectTarget("/start?from=gate") }
        ) { publicURL, client in
            let reply = try await client.send(publicURL.description + "page")
            #expect(reply.status == 303)
            #expect(reply.headers["location"] == ["/start?from=gate"])
            // The redirect is the gate's own answer: it carries the gate's headers.
            #expect(reply.headers["cache-control"] == ["no-store"])
            #expect(reply.headers["content-security-policy"].first?.contains("default-src 'none'") == true)
            #expect(try await client.send(publicURL.description + "page", method: .HEAD).status == 303)
            let post = try await client.send(publicURL.description + "page", method: .POST, body: Array("a=1".utf8))
            #expect(post.status == 401)
            // A launch keeps its own answer with its reason: never redirected.
            let launch = try GateFixtures.launchURL(for: publicURL)
            #expect(try await client.send(launch).status == 303)
            let reused = try await client.send(launch)
            #expect(reused.status == 401)
            #expect(reused.body.contains("already_used"))
            #expect(reused.headers["location"].isEmpty)
        }
    }

    @Test("the access token goes upstream only when configured", arguments: [false, true])
    func accessTokenOnlyWhenConfigured(pass: Bool) async throws {
        let upstream = try await EchoUpstream()
        try await withGate(
            mode: .reverseProxy(upstream: try GateUpstream(upstream.origin)),
            adjust: { $0.passAccessToken = pass }
        ) { publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let echo = try await client.send(publicURL.description, headers: [("Cookie", cookie)]).echo
            if pass {
                #expect(echo.identity["x-webapp-launch-access-token"] == "tok-abc/123+xyz=")
                #expect(echo.values("X-WebApp-Launch-Access-Token") == ["tok-abc%2F123%2Bxyz%3D"])
            } else {
                #expect(echo.identity["x-webapp-launch-access-token"] == nil)
                #expect(!echo.headers.contains { $0.1.contains("tok-abc") })
            }
        }
    }

    @Test("the session cookie is not forwarded upstream; the app's own cookies are")
    func sessionCookieStaysAtTheGate() async throws {
        let upstream = try await EchoUpstream()
        try await withGate(mode: .reverseProxy(upstream: try GateUpstream(upstream.origin))) { publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let echo = try await client.send(publicURL.description, headers: [("Cookie", "theme=dark; \(cookie); lang=de")]).echo
            #expect(echo.values("Cookie") == ["theme=dark; lang=de"])
            let alone = try await client.send(publicURL.description, headers: [("Cookie", cookie)]).echo
            #expect(alone.values("Cookie").isEmpty)
        }
    }

    @Test("hop-by-hop headers are removed in both directions (RFC 9110 §7.6.1), relayed on the event loop or not", arguments: [true, false])
    func hopByHopHeadersAreRemoved(eventLoop: Bool) async throws {
        let upstream = try await EchoUpstream()
        try await withGate(mode: .reverseProxy(upstream: try GateUpstream(upstream.origin)), adjust: { $0.answersOnEventLoop = eventLoop }) { publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            // An idle upstream connection, for the request to be relayed on.
            #expect(try await client.send(publicURL.description, headers: [("Cookie", cookie)]).status == 200)
            let reply = try await client.send(publicURL.description + "hop", headers: [
                ("Cookie", cookie), ("Connection", "X-Secret-Hop, keep-alive"), ("X-Secret-Hop", "1"),
                ("Keep-Alive", "timeout=99"), ("Upgrade", "websocket"), ("TE", "trailers"),
                ("Proxy-Authorization", "Basic c2VjcmV0"), ("Proxy-Connection", "keep-alive"), ("X-End-To-End", "kept"),
            ])
            let echo = try reply.echo
            for name in ["X-Secret-Hop", "Keep-Alive", "Upgrade", "TE", "Proxy-Authorization", "Proxy-Connection"] {
                #expect(echo.values(name).isEmpty, "\(name) reached the upstream")
            }
            #expect(echo.values("X-End-To-End") == ["kept"])
            #expect(echo.values("Connection").allSatisfy { !$0.lowercased().contains("x-secret-hop") })
            // The upstream's /hop answer named X-Hop-Secret in Connection and sent Keep-Alive
            // and an identity header: none reaches the client.
            #expect(reply.headers["x-hop-secret"].isEmpty)
            #expect(reply.headers["keep-alive"].isEmpty)
            #expect(reply.headers["x-webapp-launch-subject"].isEmpty)
            #expect(reply.headers["x-upstream"] == ["python"])
            // Proxied pages keep their own headers: the gate's strict CSP is for its own pages.
            #expect(reply.headers["content-security-policy"].isEmpty)
        }
    }

    @Test("request bodies stream upstream within the limit; over it the gate answers 413")
    func requestBodyLimit() async throws {
        let upstream = try await EchoUpstream()
        try await withGate(
            mode: .reverseProxy(upstream: try GateUpstream(upstream.origin)),
            adjust: { $0.maximumRequestBodyBytes = 4096 }
        ) { publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let url = publicURL.description + "upload"
            let small = try await client.send(url, method: .POST, headers: [("Cookie", cookie)], body: Array(repeating: 0x61, count: 4096))
            #expect(try small.echo.bodyLength == 4096)
            let streamed = try await client.send(url, method: .POST, headers: [("Cookie", cookie)], body: Array(repeating: 0x62, count: 3000), streamed: true)
            #expect(try streamed.echo.bodyLength == 3000)
            let announced = try await client.send(url, method: .POST, headers: [("Cookie", cookie)], body: Array(repeating: 0x63, count: 4097))
            #expect(announced.status == 413)
            let chunked = try await client.send(url, method: .PUT, headers: [("Cookie", cookie)], body: Array(repeating: 0x64, count: 9000), streamed: true)
            #expect(chunked.status == 413)
        }
    }

    @Test("a response body over the limit is not passed on")
    func responseBodyLimit() async throws {
        let upstream = try await EchoUpstream()
        try await withGate(
            mode: .reverseProxy(upstream: try GateUpstream(upstream.origin)),
            adjust: { $0.maximumResponseBodyBytes = 10_000 }
        ) { publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let within = try await client.send(publicURL.description + "big?bytes=10000", headers: [("Cookie", cookie)])
            #expect(within.status == 200)
            #expect(within.body.utf8.count == 10_000)
            let over = try await client.send(publicURL.description + "big?bytes=10001", headers: [("Cookie", cookie)])
            #expect(over.status == 502)
        }
    }

    @Test("an upstream that is down gives 502 at once")
    func upstreamDownGives502() async throws {
        let closedPort = try freeLoopbackPort()
        try await withGate(mode: .reverseProxy(upstream: try GateUpstream("http://127.0.0.1:\(closedPort)"))) { publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let started = ContinuousClock.now
            let reply = try await client.send(publicURL.description, headers: [("Cookie", cookie)])
            #expect(reply.status == 502)
            #expect(ContinuousClock.now - started < .seconds(3))
            #expect(reply.body == "502 Bad Gateway\n")
            // The proxy's own refusal carries the gate's headers, unlike a proxied page.
            #expect(reply.headers["cache-control"] == ["no-store"])
            #expect(reply.headers["content-security-policy"].first?.contains("default-src 'none'") == true)
        }
    }

    @Test("an upstream slower than the response timeout gives 504")
    func slowUpstreamGives504() async throws {
        let upstream = try await EchoUpstream()
        try await withGate(
            mode: .reverseProxy(upstream: try GateUpstream(upstream.origin)),
            adjust: { $0.responseTimeout = .seconds(1) }
        ) { publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let started = ContinuousClock.now
            let reply = try await client.send(publicURL.description + "slow?seconds=4", headers: [("Cookie", cookie)])
            #expect(reply.status == 504)
            #expect(ContinuousClock.now - started < .seconds(3))
            let fast = try await client.send(publicURL.description + "slow?seconds=0", headers: [("Cookie", cookie)])
            #expect(fast.status == 200)
        }
    }
}
