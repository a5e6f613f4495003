import Foundation
import NIOHTTP1
import Synchronization
import Testing
import WebAppLaunch
import WebAppLaunchGate
import WebAppLaunchTestSupport
import WebAppRegistry

/// The reverse proxy's GETs relayed on the event loop (`ProxyFastPathRoute`) are
/// `GateProxy`'s own exchange: every answer alike on both paths, and only what the event loop
/// can take as it is taken off Hummingbird's path.
@Suite("Gate: proxied GETs relayed on the event loop as on Hummingbird's path", .serialized)
struct GateProxyFastPathTests {
    /// The upstream's answer to each path (the query is ignored): framings, statuses, fields
    /// the gate removes, and failures.
    static func answer(_ target: String) -> ScriptedUpstream.Answer {
        let path = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target
        switch path {
        case "/chunked":
            return .bytes("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
        case "/streamed":
            // Over the buffer (1,024 bytes in these gates), under the response limit: streamed.
            return .bytes("HTTP/1.1 200 OK\r\nContent-Length: 3000\r\n\r\n" + String(repeating: "x", count: 3000))
        case "/too-large":
            return .bytes("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        case "/slow":
            return .delayed(.seconds(3), "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nlate")
        case "/gone":
            return .close
        case "/no-content":
            return .bytes("HTTP/1.1 204 No Content\r\nX-App: yes\r\n\r\n")
        case "/moved":
            return .bytes("HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n")
        default:
            return .bytes(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: 5\r\nSet-Cookie: app=1; Path=/\r\n"
                    + "Keep-Alive: timeout=5\r\nConnection: keep-alive, X-Hop-Secret\r\nX-Hop-Secret: 1\r\nX-WebApp-Launch-KVNR: B551029382\r\n"
                    + "Date: Mon, 01 Jan 2001 00:00:00 GMT\r\nCache-Control: max-age=60\r\n\r\nhello"
            )
        }
    }

    /// A request of the comparison.
    struct Case: Sendable {
        let name: String
        var method: HTTPMethod = .GET
        var target = "page"
        var headers: [(String, String)] = []
        var withSession = true
        /// The line the gate logs, its status, and whether the event loop answered it (else Hummingbird).
        var logged: (message: String, status: String, onEventLoop: Bool)?
    }

    static let cases: [Case] = [
        Case(name: "a page, fields to remove and a Date of the upstream's"),
        Case(name: "a query, byte for byte", target: "page?q=a%20b&x=1"),
        Case(name: "a chunked body", target: "chunked"),
        Case(name: "a body over the buffer, streamed", target: "streamed"),
        Case(name: "204", target: "no-content"),
        Case(name: "a redirect, passed to the browser", target: "moved"),
        Case(name: "spoofed identity fields in the request", headers: [("X-WebApp-Launch-KVNR", "B551029382"), ("x_webapp_launch_first_name", "Mallory")]),
        Case(name: "an announced body over the limit: 502", target: "too-large", logged: ("gate.response_too_large", "502", true)),
        Case(name: "no response head in time: 504", target: "slow", logged: ("gate.upstream_failed", "504", true)),
        // The kept-alive connection closes before a byte: passed on to Hummingbird, which sends
        // it again on a new connection (closed too: 502, logged there).
        Case(name: "a kept-alive connection closed before the answer: sent again, then 502", target: "gone", logged: ("gate.upstream_failed", "502", false)),
        Case(name: "no session (Hummingbird's on both)", withSession: false),
        Case(name: "HEAD (Hummingbird's on both)", method: .HEAD),
        Case(name: "Connection: close (Hummingbird's on both)", headers: [("Connection", "close")]),
        Case(name: "a launch with a session (Hummingbird's on both)", target: "?launch=abc"),
        Case(name: "/readyz is never proxied (Hummingbird's on both)", target: "readyz"),
    ]

    /// The reply with what may differ between two gates taken out: `Date`.
    static func comparable(_ reply: Reply) -> [String] {
        ["\(reply.status)"] + reply.headers.filter { $0.name.lowercased() != "date" }.map { "\($0.name.lowercased()): \($0.value)" } + [reply.body]
    }

    static func adjust(_ configuration: inout GateConfiguration, eventLoop: Bool) {
        configuration.answersOnEventLoop = eventLoop
        configuration.responseBufferBytes = 1024
        configuration.maximumResponseBodyBytes = 8192
        // Under /slow's 3 s, with room for a page on a machine busy with other suites (at 1 s
        // a fresh-clone CI run once saw a page time out).
        configuration.responseTimeout = .seconds(2)
    }

    @Test("every proxied answer is byte for byte alike (but Date) on both paths; the upstream gets the same requests; the event loop took the sessions' GETs")
    func sameAnswers() async throws {
        let fastUpstream = try await ScriptedUpstream { _, target in Self.answer(target) }
        let slowUpstream = try await ScriptedUpstream { _, target in Self.answer(target) }
        let fastLogs = LogCapture()
        let slowLogs = LogCapture()
        let collected = Mutex<[(String, [String], [String])]>([])
        let sessionValue = Mutex("")
        do {
            try await withGate(mode: .reverseProxy(upstream: try GateUpstream(fastUpstream.origin)), adjust: { Self.adjust(&$0, eventLoop: true) }, logs: fastLogs) { fastURL, fastClient in
                try await withGate(mode: .reverseProxy(upstream: try GateUpstream(slowUpstream.origin)), adjust: { Self.adjust(&$0, eventLoop: false) }, logs: slowLogs) { slowURL, slowClient in
                    // One session for both gates: the same app keys seal and open it.
                    let session = try await fastClient.exchange(try GateFixtures.launchURL(for: fastURL))
                    sessionValue.withLock { $0 = String(session.drop { $0 != "=" }.dropFirst()) }
                    for item in Self.cases {
                        let headers = item.headers + (item.withSession ? [("Cookie", session)] : [])
                        // A page first, so an idle upstream connection is there for the case.
                        for (url, client) in [(fastURL, fastClient), (slowURL, slowClient)] {
                            #expect(try await client.send(url.description + "page", headers: [("Cookie", session)]).status == 200)
                        }
                        let onFast = try await fastClient.send(fastURL.description + item.target, method: item.method, headers: headers)
                        let onSlow = try await slowClient.send(slowURL.description + item.target, method: item.method, headers: headers)
                        collected.withLock { $0.append((item.name, Self.comparable(onFast), Self.comparable(onSlow))) }
                    }
                }
            }
        } catch {
            try? await fastUpstream.stop()
            try? await slowUpstream.stop()
            throw error
        }
        let fastRequests = fastUpstream.snapshot.requests.map(\.target)
        let slowRequests = slowUpstream.snapshot.requests.map(\.target)
        try await fastUpstream.stop()
        try await slowUpstream.stop()

        let answers = collected.withLock { $0 }
        #expect(answers.count == Self.cases.count)
        for (name, onFast, onSlow) in answers {
            #expect(onFast == onSlow, "\(name)")
        }
        let page = try #require(answers.first).1
        #expect(page.first == "200" && page.last == "hello")
        #expect(page.contains("set-cookie: app=1; Path=/") && page.contains("cache-control: max-age=60"))
        #expect(!page.contains { $0.hasPrefix("keep-alive") || $0.hasPrefix("connection") || $0.hasPrefix("x-hop-secret") || $0.hasPrefix("x-webapp-launch") })
        #expect(answers.first { $0.0.hasPrefix("a chunked") }?.1.last == "hello world")
        #expect(answers.first { $0.0.hasPrefix("a body over") }?.1.last?.count == 3000)
        #expect(fastRequests == slowRequests, "the upstream got other requests through the event loop")
        #expect(fastRequests.filter { $0 == "/gone" }.count == 2, "sent once on the kept-alive connection, once more on a new one")
        // Each gate says so once, whichever path sent it again.
        for logs in [fastLogs, slowLogs] {
            let again = logs.all.filter { $0.message == "gate.upstream_sent_again" }
            #expect(again.count == 1 && again.first?.metadata["error"] == "connectionClosed", "\(again.map(\.text))")
        }

        for item in Self.cases {
            guard let (message, status, onEventLoop) = item.logged else { continue }
            let fast = fastLogs.lines(message, where: "status", is: status)
            let slow = slowLogs.lines(message, where: "status", is: status)
            #expect(fast.count == 1 && slow.count == 1, "\(item.name): logged once on each")
            #expect(fast.allSatisfy { ($0.metadata["hb.request.id"] == nil) == onEventLoop }, "\(item.name): answered where expected")
            #expect(slow.allSatisfy { $0.metadata["hb.request.id"] != nil }, "\(item.name): answered by Hummingbird when switched off")
        }
        // No personal data or credential in either gate's log, whichever path answered.
        let user = GateFixtures.user
        for logs in [fastLogs, slowLogs] {
            for secret in [user.kvnumber, user.firstName, user.lastName, user.accessToken, sessionValue.withLock { $0 }] {
                #expect(!logs.fullText.contains(secret), "a log line carries personal data or a credential")
            }
        }
    }

    @Test("pipelined GETs with a session are answered in order, a relayed one holding back the next; a slow relayed answer does not let Hummingbird's overtake it")
    func pipelinedOrder() async throws {
        let upstream = try await ScriptedUpstream { _, target in
            target == "/first"
                ? .delayed(.milliseconds(300), "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst")
                : .bytes("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext")
        }
        do {
            try await withGate(mode: .reverseProxy(upstream: try GateUpstream(upstream.origin))) { publicURL, client in
                let session = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
                // Warm: an idle upstream connection for the first pipelined request.
                #expect(try await client.send(publicURL.description + "next", headers: [("Cookie", session)]).status == 200)
                let port = try #require(publicURL.port)
                let raw = try await offload { () throws -> String in
                    let socket = try LoopbackSocket(port: port)
                    defer { socket.close() }
                    // A relayed GET (slow upstream), a GET without a session (Hummingbird's 401),
                    // a relayed GET, and the last one closing the connection.
                    try socket.send(
                        "GET /first HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(session)\r\n\r\n"
                            + "GET /next HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                            + "GET /next HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(session)\r\n\r\n"
                            + "GET /next HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(session)\r\nConnection: close\r\n\r\n"
                    )
                    return try socket.readAll(limit: .seconds(5))
                }
                let statuses = raw.matches(of: /HTTP\/1\.1 (\d{3})/).map { String($0.output.1) }
                #expect(statuses == ["200", "401", "200", "200"], "\(statuses)")
                let bodies = raw.matches(of: /\r\n\r\n(first|next)/).map { String($0.output.1) }
                #expect(bodies == ["first", "next", "next"], "\(bodies)")
            }
        } catch {
            try? await upstream.stop()
            throw error
        }
        try await upstream.stop()
    }

    @Test("requests that arrive while the one before them is relayed wait their turn: answered after it, in their order, the upstream asked for each once")
    func requestsArrivingDuringRelay() async throws {
        let asked = Mutex<[String]>([])
        let upstream = try await ScriptedUpstream { _, target in
            asked.withLock { $0.append(target) }
            return target == "/first"
                ? .delayed(.milliseconds(400), "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst")
                : .bytes("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n" + target.dropFirst().prefix(5))
        }
        do {
            try await withGate(mode: .reverseProxy(upstream: try GateUpstream(upstream.origin))) { publicURL, client in
                let session = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
                // Warm: an idle upstream connection, so the first request is relayed on the event loop.
                #expect(try await client.send(publicURL.description + "warmup", headers: [("Cookie", session)]).status == 200)
                asked.withLock { $0.removeAll() }
                let port = try #require(publicURL.port)
                let raw = try await offload { () throws -> String in
                    let socket = try LoopbackSocket(port: port)
                    defer { socket.close() }
                    try socket.send("GET /first HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(session)\r\n\r\n")
                    // The first is being relayed (its upstream answers after 400 ms) when these come.
                    Thread.sleep(forTimeInterval: 0.15)
                    try socket.send("GET /secnd HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(session)\r\n\r\n")
                    Thread.sleep(forTimeInterval: 0.05)
                    try socket.send(
                        "GET /third HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                            + "GET /forth HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(session)\r\nConnection: close\r\n\r\n"
                    )
                    return try socket.readAll(limit: .seconds(5))
                }
                let statuses = raw.matches(of: /HTTP\/1\.1 (\d{3})/).map { String($0.output.1) }
                #expect(statuses == ["200", "200", "401", "200"], "\(statuses)")
                let bodies = raw.matches(of: /\r\n\r\n(first|secnd|forth)/).map { String($0.output.1) }
                #expect(bodies == ["first", "secnd", "forth"], "\(bodies)")
                #expect(asked.withLock { $0 } == ["/first", "/secnd", "/forth"], "the upstream is asked once per relayed request, in order")
            }
        } catch {
            try? await upstream.stop()
            throw error
        }
        try await upstream.stop()
    }
}
