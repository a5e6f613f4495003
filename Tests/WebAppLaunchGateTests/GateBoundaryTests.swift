import AsyncHTTPClient
import Foundation
import HTTPTypes
#if canImport(Glibc)
import Glibc
#endif
import NIOHTTP1
import Testing
import WebAppLaunch
import WebAppLaunchGate
import WebAppLaunchTestSupport
import WebAppRegistry

/// The gate as a boundary, in both shapes with real sockets (issue 31): a request carrying
/// `launch` never reaches the upstream, identity headers and session cookies are removed as
/// families, targets go upstream byte for byte, one session cannot take every upstream
/// connection. One test row per shape where the rule applies to both.
@Suite("Gate: the boundary in both shapes (launch routing, header and cookie families, targets, isolation)", .serialized)
struct GateBoundaryTests {
    /// The two shapes, as "a gate in front of the Python upstream; here is its public origin".
    enum Shape: String, CaseIterable, CustomTestStringConvertible {
        case reverseProxy, nginx
        var testDescription: String { rawValue }
    }

    private func withShape(
        _ shape: Shape,
        adjust: @escaping (inout GateConfiguration) -> Void = { _ in },
        _ body: @Sendable (String, RegisteredURL, TestClient) async throws -> Void
    ) async throws {
        switch shape {
        case .reverseProxy:
            let upstream = try await EchoUpstream()
            try await withGate(mode: .reverseProxy(upstream: try GateUpstream(upstream.origin)), adjust: adjust) { publicURL, client in
                try await body(String(publicURL.description.dropLast()), publicURL, client)
            }
            withExtendedLifetime(upstream) {}
        case .nginx:
            try await withNginxGate(adjust: adjust) { nginx, publicURL, client in
                try await body(nginx.origin, publicURL, client)
            }
        }
    }

    @Test("a connection to the gate that sends nothing is closed after the idle timeout, in both modes", arguments: [true, false])
    func silentConnectionIsClosed(reverseProxy: Bool) async throws {
        let upstream = try await EchoUpstream()
        let mode: GateConfiguration.Mode = reverseProxy ? .reverseProxy(upstream: try GateUpstream(upstream.origin)) : .authRequest
        try await withGate(mode: mode, adjust: { $0.idleTimeout = .milliseconds(500) }) { publicURL, _ in
            let lifetime = try await silentConnectionLifetime(port: try #require(publicURL.port))
            #expect(lifetime != nil, "the gate never closed the silent connection")
            if let lifetime { #expect(lifetime < .seconds(3)) }
        }
        withExtendedLifetime(upstream) {}
    }

    @Test("session of user A, then a launch of user B: B's launch is exchanged, never passed to the app as A", arguments: Shape.allCases)
    func launchWinsOverLiveSession(shape: Shape) async throws {
        try await withShape(shape) { origin, publicURL, client in
            let cookieA = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let launchB = try GateFixtures.launchURL(for: publicURL, user: GateFixtures.userB)
            let reply = try await client.send(launchB, headers: [("Cookie", cookieA)])
            #expect(reply.status == 303)
            #expect(reply.headers["x-upstream"].isEmpty)
            let cookieB = try #require(reply.sessionCookie)
            let echo = try await client.send(origin + "/", headers: [("Cookie", cookieB)]).echo
            #expect(echo.identity["x-webapp-launch-subject"] == "B987654320")
            #expect(echo.identity["x-webapp-launch-first-name"] == "Berta")
            // Used once, by the gate: the same URL again is refused, with A's cookie too.
            let again = try await client.send(launchB, headers: [("Cookie", cookieA)])
            #expect(again.status == 401)
            #expect(again.headers["x-upstream"].isEmpty)
        }
    }

    @Test("a launch on another path, in any piece position, never reaches the app", arguments: Shape.allCases)
    func launchOnAnyPathIsExchangedOrRefused(shape: Shape) async throws {
        try await withShape(shape) { origin, publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            for target in ["/other?launch=AAAA", "/?a=1&launch", "/x?b=2&launch=&c=3"] {
                let reply = try await client.send(origin + target, headers: [("Cookie", cookie)])
                #expect(reply.status == 401, "\(target)")
                #expect(reply.headers["x-upstream"].isEmpty, "\(target) reached the app")
            }
            // Not launch pieces (the rule is byte for byte): these go to the app.
            for target in ["/?xlaunch=1", "/?launcher=1", "/?%6Caunch=1"] {
                let reply = try await client.send(origin + target, headers: [("Cookie", cookie)])
                #expect(reply.status == 200, "\(target)")
            }
        }
    }

    @Test(
        "a launch sent with HEAD, OPTIONS, PUT, DELETE or a JSON POST is refused (400) and stays usable",
        arguments: Shape.allCases
    )
    func misplacedLaunchIsNotConsumed(shape: Shape) async throws {
        try await withShape(shape) { origin, publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let launch = try GateFixtures.launchURL(for: publicURL, user: GateFixtures.userB)
            for method in [HTTPMethod.HEAD, .OPTIONS, .PUT, .DELETE] {
                let reply = try await client.send(launch, method: method, headers: [("Cookie", cookie)])
                #expect(reply.status == 400, "\(method)")
                #expect(reply.headers["x-upstream"].isEmpty, "\(method) reached the app")
            }
            let json = try await client.send(launch, method: .POST, headers: [("Cookie", cookie), ("Content-Type", "application/json")], body: Array("{}".utf8))
            #expect(json.status == 400)
            #expect(json.headers["x-upstream"].isEmpty)
            #expect(try await client.send(launch).status == 303)
        }
    }

    @Test(
        "form POSTs to the app's path: never 413 by the launch reader, a launch piece anywhere in a large one stops it (400); other paths reach the app",
        arguments: Shape.allCases
    )
    func formPostsToTheAppPath(shape: Shape) async throws {
        try await withShape(shape) { origin, publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let form = [("Cookie", cookie), ("Content-Type", "application/x-www-form-urlencoded")]
            let small = Array("name=Erika&city=Berlin".utf8)
            let large = Array(("text=" + String(repeating: "a", count: 100_000)).utf8)
            for body in [small, large] {
                let reply = try await client.send(origin + "/", method: .POST, headers: form, body: body)
                switch shape {
                case .reverseProxy:
                    // The app's own form reaches it whole.
                    #expect(reply.status == 200)
                    #expect(try reply.echo.bodyLength == body.count)
                case .nginx:
                    // The launch path is the gate's for form POSTs in this shape: back to it.
                    #expect(reply.status == 303)
                    #expect(reply.headers["location"] == ["/"])
                    #expect(reply.headers["x-upstream"].isEmpty)
                }
            }
            let launchLate = large + Array("&launch=AAAA".utf8)
            let refused = try await client.send(origin + "/", method: .POST, headers: form, body: launchLate)
            #expect(refused.status == 400)
            #expect(refused.headers["x-upstream"].isEmpty)
            // A form posted to another path of the app is the app's, in both shapes.
            let elsewhere = try await client.send(origin + "/submit", method: .POST, headers: form, body: large)
            #expect(elsewhere.status == 200)
            #expect(try elsewhere.echo.bodyLength == large.count)
        }
    }

    @Test("identity headers in any case and with `_` for `-` are removed; the gate's own replace them", arguments: Shape.allCases)
    func identityHeaderFamily(shape: Shape) async throws {
        try await withShape(shape) { origin, publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let reply = try await client.send(origin + "/", headers: [
                ("Cookie", cookie), ("X_WebApp_Launch_Subject", "attacker"), ("X-WebApp-Launch_KVNR", "Z1"),
                ("x_webapp_launch_access_token", "forged"),
            ])
            #expect(reply.status == 200)
            let echo = try reply.echo
            let folded = echo.headers.map { $0.0.lowercased().replacingOccurrences(of: "_", with: "-") }.filter { $0.hasPrefix("x-webapp-launch-") }
            #expect(folded.sorted() == [
                "x-webapp-launch-app", "x-webapp-launch-first-name", "x-webapp-launch-kvnr",
                "x-webapp-launch-last-name", "x-webapp-launch-subject",
            ])
            #expect(!reply.body.contains("attacker") && !reply.body.contains("forged"))
            #expect(echo.identity["x-webapp-launch-subject"] == "A123456780")
        }
    }

    @Test("every session cookie of ours, another app's included, is removed before the app", arguments: Shape.allCases)
    func sessionCookieFamily(shape: Shape) async throws {
        try await withShape(shape) { origin, publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let value = "a=1; __Host-webapp_launch_session_otherapp=SECRET1; \(cookie); WEBAPP_LAUNCH_SESSION=SECRET2; b=2"
            let echo = try await client.send(origin + "/", headers: [("Cookie", value)]).echo
            #expect(echo.values("Cookie") == ["a=1; b=2"])
        }
    }

    @Test("request targets reach the app byte for byte (or are refused, never rewritten)", arguments: Shape.allCases)
    func targetsAreByteExact(shape: Shape) async throws {
        try await withShape(shape) { origin, publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            for target in ["/a%2Fb?x=%26&y=%2526", "/p;q=1?z=a+b", "/a//b/./c?x=1", "/%zz?q=%"] {
                let reply = try await curl(origin + target, headers: [("Cookie", cookie)])
                if reply.status == 200 {
                    let object = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
                    #expect(object?["path"] as? String == target)
                } else {
                    #expect(reply.status == 400, "\(target): \(reply.status)")
                    #expect(!reply.headers.contains { $0.0.lowercased() == "x-upstream" })
                }
            }
            // The ordinary ones always go through.
            for target in ["/a%2Fb?x=%26&y=%2526", "/p;q=1?z=a+b"] {
                #expect(try await curl(origin + target, headers: [("Cookie", cookie)]).status == 200)
            }
        }
    }

    @Test("forwarding headers follow one policy: Host and X-Forwarded-Host/-Proto from the public URL, client claims dropped", arguments: Shape.allCases)
    func forwardingHeaderPolicy(shape: Shape) async throws {
        try await withShape(shape) { origin, publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let echo = try await client.send(origin + "/", headers: [
                ("Cookie", cookie), ("X-Forwarded-Host", "evil.example"), ("X-Forwarded-Proto", "https"),
                ("X-Forwarded-For", "10.6.6.6"), ("X-Real-IP", "10.6.6.6"), ("Forwarded", "for=10.6.6.6"),
            ]).echo
            let host = "127.0.0.1:\(publicURL.port ?? 80)"
            #expect(echo.values("Host") == [host])
            #expect(echo.values("X-Forwarded-Host") == [host])
            #expect(echo.values("X-Forwarded-Proto") == ["http"])
            #expect(echo.values("X-Forwarded-For").allSatisfy { $0.isEmpty })
            #expect(echo.values("X-Real-IP").allSatisfy { $0.isEmpty })
            #expect(echo.values("Forwarded").allSatisfy { $0.isEmpty })
        }
    }

    @Test(
        "one session's slow requests take at most its share of upstream connections: its next gets 429, another user is served (relayed on the event loop, or not)",
        arguments: [true, false]
    )
    func perSessionUpstreamBound(eventLoop: Bool) async throws {
        let upstream = try await EchoUpstream()
        try await withGate(
            mode: .reverseProxy(upstream: try GateUpstream(upstream.origin)),
            adjust: { $0.maximumUpstreamConnectionsPerSession = 2; $0.maximumUpstreamConnections = 3; $0.answersOnEventLoop = eventLoop }
        ) { publicURL, client in
            let cookieA = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let cookieB = try await client.exchange(try GateFixtures.launchURL(for: publicURL, user: GateFixtures.userB))
            // An idle upstream connection, for the first slow request to be relayed on.
            #expect(try await client.send(publicURL.description, headers: [("Cookie", cookieB)]).status == 200)
            let slow = publicURL.description + "slow?seconds=2"
            async let first = client.send(slow, headers: [("Cookie", cookieA)])
            async let second = client.send(slow, headers: [("Cookie", cookieA)])
            try await Task.sleep(for: .milliseconds(500))
            let third = try await client.send(publicURL.description, headers: [("Cookie", cookieA)])
            #expect(third.status == 429)
            #expect(third.headers["retry-after"] == ["1"])
            let other = try await client.send(publicURL.description, headers: [("Cookie", cookieB)])
            #expect(other.status == 200)
            #expect(try await first.status == 200)
            #expect(try await second.status == 200)
            #expect(try await client.send(publicURL.description, headers: [("Cookie", cookieA)]).status == 200)
        }
        withExtendedLifetime(upstream) {}
    }
}

/// A connection that asks for `target` and never reads the answer: a client that stalls.
private final class StalledClient {
    let fd: Int32

    init(port: Int, target: String, cookie: String) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { throw SubprocessError(message: "cannot connect to \(port)") }
        let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(cookie)\r\n\r\n".utf8)
        guard write(fd, request, request.count) == request.count else { throw SubprocessError(message: "cannot send") }
    }

    deinit { close(fd) }
}

extension GateBoundaryTests {
    @Test(
        "a client that stops reading a large streamed response loses it at the write deadline, and its session's upstream slot is free again (relayed on the event loop, or not)",
        arguments: [true, false]
    )
    func clientWriteDeadline(eventLoop: Bool) async throws {
        let upstream = try await EchoUpstream()
        try await withGate(
            mode: .reverseProxy(upstream: try GateUpstream(upstream.origin)),
            adjust: { $0.maximumUpstreamConnectionsPerSession = 1; $0.clientWriteTimeout = .seconds(1); $0.answersOnEventLoop = eventLoop }
        ) { publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            // An idle upstream connection, for the stalled request to be relayed on.
            #expect(try await client.send(publicURL.description, headers: [("Cookie", cookie)]).status == 200)
            let stalled = try StalledClient(port: try #require(publicURL.port), target: "/big?bytes=67108864", cookie: cookie)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await client.send(publicURL.description, headers: [("Cookie", cookie)]).status == 429, "the stalled response holds the session's slot")
            var served = false
            for _ in 0..<20 where !served {
                try await Task.sleep(for: .milliseconds(250))
                served = try await client.send(publicURL.description, headers: [("Cookie", cookie)]).status == 200
            }
            #expect(served, "the slot came back after the write deadline")
            withExtendedLifetime(stalled) {}
        }
        withExtendedLifetime(upstream) {}
    }
}

/// The nginx side only: what its configuration adds (logs, the `/auth` checks, TLS).
@Suite("Gate: nginx configuration as printed by the gate", .serialized)
struct GateNginxConfigurationTests {
    @Test("Docs/nginx-auth-request.conf is exactly what `gate --print-nginx-config` prints for the example")
    func shippedFileIsPrinted() throws {
        let shipped = try String(contentsOfFile: RepositoryFile.nginxConfiguration, encoding: .utf8)
        #expect(shipped == NginxConfiguration.example.complete)
    }

    @Test("the printed configuration names every identity header the gate uses, and sends the app the cookies /auth answered with")
    func printedFromTheGatesConstants() {
        let text = NginxConfiguration.example.complete
        for name in IdentityHeaders.names + [NginxConfiguration.appCookies] {
            #expect(text.contains("proxy_hide_header \(name.rawName);"))
        }
        for name in IdentityHeaders.names {
            #expect(text.contains("proxy_set_header \(name.rawName) "))
        }
        #expect(text.contains("auth_request_set $webapp_launch_app_cookie $upstream_http_x_webapp_launch_app_cookies;"))
        #expect(text.contains("proxy_set_header Cookie $webapp_launch_app_cookie;"))
        #expect(!text.contains("$http_cookie"), "nginx reads no cookie of its own")
        #expect(!text.contains("proxy_pass http://webapp_launch_app;"), "every proxy_pass sends $request_uri")
    }

    @Test(
        "nginx keeps enough idle connections to the gate and the app, for any number of requests, and lets one go before the gate would and when the gate lets its own to the app go",
        arguments: [
            (Duration.seconds(75), Duration.seconds(4)), (.seconds(10), .seconds(1)), (.seconds(1), .milliseconds(1500)), (.seconds(3600), .seconds(30)),
        ]
    )
    func keptConnections(gateIdle: Duration, appIdle: Duration) throws {
        let nginx = NginxConfiguration(publicURL: try RegisteredURL("http://127.0.0.1:8080/"), gateIdleTimeout: gateIdle, appIdleTimeout: appIdle)
        let text = nginx.httpContext
        /// The directives of one upstream block, by name.
        func block(_ name: String) throws -> [String: String] {
            let start = try #require(text.range(of: "upstream \(name) {\n"))
            let body = text[start.upperBound...].prefix { $0 != "}" }
            return Dictionary(uniqueKeysWithValues: body.split(separator: "\n").compactMap { line -> (String, String)? in
                let words = line.trimmingCharacters(in: .whitespaces).dropLast().split(separator: " ", maxSplits: 1)
                return words.count == 2 ? (String(words[0]), String(words[1])) : nil
            })
        }
        /// An nginx time (`60s`, `800ms`) in milliseconds.
        func milliseconds(_ value: String?) throws -> Int64 {
            let value = try #require(value)
            if value.hasSuffix("ms") { return try #require(Int64(value.dropLast(2))) }
            #expect(value.hasSuffix("s"), "\(value)")
            return try #require(Int64(value.dropLast())) * 1000
        }
        let gate = try block("webapp_launch_gate")
        let app = try block("webapp_launch_app")
        for directives in [gate, app] {
            #expect(try #require(Int(directives["keepalive"] ?? "")) >= 64, "idle connections for a worker's subrequests in flight")
            #expect(try #require(Int(directives["keepalive_requests"] ?? "")) >= 1_000_000, "never closed for their count")
        }
        let gateKept = try milliseconds(gate["keepalive_timeout"])
        #expect(gateKept >= 1 && Duration.milliseconds(gateKept) < gateIdle, "nginx lets an idle connection to the gate go first")
        #expect(Duration.milliseconds(try milliseconds(app["keepalive_timeout"])) == appIdle, "as long as the gate keeps its own to the app")
    }

    @Test("with the gate down, a launch gets 502 and its token is in no nginx log")
    func gateDownKeepsLaunchesOutOfLogs() async throws {
        let upstream = try await EchoUpstream()
        let port = try freeLoopbackPort()
        let closedGate = try freeLoopbackPort()
        let publicURL = try RegisteredURL("http://127.0.0.1:\(port)/")
        let nginx = try await Nginx(port: port, gatePort: closedGate, upstreamPort: upstream.port, publicURL: publicURL)
        let client = TestClient()
        let launch = try GateFixtures.launchURL(for: publicURL)
        let token = String(launch.split(separator: "=", maxSplits: 1)[1])
        let reply = try await client.send(launch)
        let form = try await client.send(
            nginx.origin + "/", method: .POST, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array("launch=\(token)".utf8)
        )
        try await client.shutdown()
        #expect(reply.status == 502)
        #expect(form.status == 502)
        try await Task.sleep(for: .milliseconds(200))
        #expect(!nginx.errorLog.contains(token.prefix(24)))
        #expect(!nginx.launchErrorLog.contains(token.prefix(24)))
        #expect(!nginx.accessLog.contains(token.prefix(24)))
        #expect(nginx.accessLog.contains("GET / HTTP/1.1\" 502"))
        withExtendedLifetime(upstream) {}
    }

    @Test("/auth refuses without the original request, sends anything that may be a launch to the gate, and refuses more session cookies than an earlier configuration's maps remove; its 202 carries the app's cookies without any session cookie")
    func authEndpointChecks() async throws {
        try await withGate(mode: .authRequest) { publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let auth = publicURL.description + "auth"
            #expect(try await client.send(auth, headers: [("Cookie", cookie)]).status == 403)
            let launchTarget = [("X-Original-URI", "/?launch=AAAA"), ("X-Original-Method", "GET"), ("Cookie", cookie)]
            #expect(try await client.send(auth, headers: launchTarget).status == 401)
            let headTarget = [("X-Original-URI", "/x?a=1&launch"), ("X-Original-Method", "HEAD"), ("Cookie", cookie)]
            #expect(try await client.send(auth, headers: headTarget).status == 401)
            let formTarget = [("X-Original-URI", "/"), ("X-Original-Method", "POST"), ("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", cookie)]
            #expect(try await client.send(auth, headers: formTarget).status == 401)
            let otherForm = [("X-Original-URI", "/submit"), ("X-Original-Method", "POST"), ("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", cookie)]
            #expect(try await client.send(auth, headers: otherForm).status == 202)
            let many = (1...SessionCookieFamily.nginxPasses).map { "__Host-webapp_launch_session_app\($0)=x" }.joined(separator: "; ")
            let crowded = [("X-Original-URI", "/"), ("X-Original-Method", "GET"), ("Cookie", "\(many); \(cookie)")]
            #expect(try await client.send(auth, headers: crowded).status == 403)
            let others = (2...SessionCookieFamily.nginxPasses).map { "__Host-webapp_launch_session_app\($0)=x" }.joined(separator: "; ")
            let mixed = [("X-Original-URI", "/"), ("X-Original-Method", "GET"), ("Cookie", "a=1; \(others); \(cookie)"), ("Cookie", "b=2")]
            let mixedReply = try await client.send(auth, headers: mixed)
            #expect(mixedReply.status == 202)
            #expect(mixedReply.headers.filter { $0.name.lowercased() == "x-webapp-launch-app-cookies" }.map(\.value) == ["a=1; b=2"])
            let underscored = [("X-Original-URI", "/"), ("X-Original-Method", "GET"), ("Cookie", cookie), ("X-WebApp-Launch_Subject", "x")]
            #expect(try await client.send(auth, headers: underscored).status == 403)
            let fine = [("X-Original-URI", "/"), ("X-Original-Method", "GET"), ("Cookie", cookie)]
            #expect(try await client.send(auth, headers: fine).status == 202)
        }
    }

    @Test("over https: the __Host- cookie is set Secure, a launch of user B wins over A's session, and no session cookie reaches the app")
    func httpsHostCookie() async throws {
        try await withNginxGate(tls: true) { nginx, publicURL, _ in
            #expect(publicURL.scheme == "https")
            let launchA = try GateFixtures.launchURL(for: publicURL)
            let first = try await curl(launchA)
            #expect(first.status == 303)
            let setCookie = try #require(first.headers.first { $0.0.lowercased() == "set-cookie" }?.1)
            #expect(setCookie.hasPrefix("__Host-webapp_launch_session_healthmagazin="))
            #expect(setCookie.contains("Secure") && setCookie.contains("Path=/"))
            let cookieA = String(setCookie.split(separator: ";")[0])
            let page = try await curl(nginx.origin + "/", headers: [("Cookie", "theme=dark; __Host-webapp_launch_session_otherapp=x; \(cookieA)")])
            #expect(page.status == 200)
            let object = try JSONSerialization.jsonObject(with: Data(page.body.utf8)) as? [String: Any]
            let headers = (object?["headers"] as? [[String]]) ?? []
            #expect(headers.filter { $0[0].lowercased() == "cookie" }.map { $0[1] } == ["theme=dark"])
            #expect(headers.contains { $0[0].lowercased() == "x-forwarded-proto" && $0[1] == "https" })
            let launchB = try GateFixtures.launchURL(for: publicURL, user: GateFixtures.userB)
            let second = try await curl(launchB, headers: [("Cookie", cookieA)])
            #expect(second.status == 303)
            #expect(!second.headers.contains { $0.0.lowercased() == "x-upstream" })
        }
    }
}
