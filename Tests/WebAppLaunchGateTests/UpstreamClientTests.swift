import Foundation
import NIOCore
import NIOHTTP1
import Testing
import WebAppLaunch
@testable import WebAppLaunchGate
import WebAppLaunchTestSupport
import WebAppRegistry

/// The gate's HTTP client to the upstream, against a scripted NIO server on loopback: what it
/// must never do (follow redirects, retry a connection attempt or a request that may have
/// had an effect, decompress, put two requests on one connection, reuse a connection after a
/// response it could not frame), the one request it sends again (a safe one whose kept-alive
/// connection closed before any answer), how many connections it holds, its timeouts and its
/// shutdown.
@Suite("Gate: the upstream client", .serialized)
struct UpstreamClientTests {
    static func configuration(maximumUpstreamConnections: Int? = nil) throws -> GateConfiguration {
        var configuration = GateConfiguration(
            appID: GateFixtures.appID,
            publicURL: try RegisteredURL("http://127.0.0.1:4180/"),
            keyring: GateFixtures.appKeyring,
            mode: .authRequest
        )
        if let maximumUpstreamConnections { configuration.maximumUpstreamConnections = maximumUpstreamConnections }
        return configuration
    }

    static func client(
        _ upstream: ScriptedUpstream,
        maximumConnections: Int = 4,
        readTimeout: Duration = .seconds(5),
        idleTimeout: Duration = .seconds(4)
    ) throws -> UpstreamClient {
        var configuration = try Self.configuration(maximumUpstreamConnections: maximumConnections)
        configuration.readTimeout = readTimeout
        configuration.upstreamIdleTimeout = idleTimeout
        return try UpstreamClient(configuration: .init(configuration, upstream: try GateUpstream(upstream.origin)))
    }

    /// Runs `body` with a scripted upstream answering by `script` and a client to it; both
    /// are shut down however `body` ends (a test that throws midway leaks no server).
    static func withScriptedUpstream(
        maximumConnections: Int = 4,
        readTimeout: Duration = .seconds(5),
        idleTimeout: Duration = .seconds(4),
        answer script: @escaping @Sendable (_ index: Int, _ target: String) -> ScriptedUpstream.Answer,
        _ body: (ScriptedUpstream, UpstreamClient) async throws -> Void
    ) async throws {
        let upstream = try await ScriptedUpstream(answer: script)
        let client: UpstreamClient
        do {
            client = try Self.client(upstream, maximumConnections: maximumConnections, readTimeout: readTimeout, idleTimeout: idleTimeout)
        } catch {
            try? await upstream.stop()
            throw error
        }
        do {
            try await body(upstream, client)
        } catch {
            await client.shutdown()
            try? await upstream.stop()
            throw error
        }
        await client.shutdown()
        try await upstream.stop()
    }

    /// A response of `body` framed by `Content-Length`, kept alive.
    static func ok(_ body: String, _ extra: String = "") -> String {
        "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\(extra)\r\n\(body)"
    }

    struct Answer {
        let status: Int
        let headers: HTTPHeaders
        let body: String
    }

    static func get(_ client: UpstreamClient, _ target: String, within deadline: TimeAmount = .seconds(5)) async throws -> Answer {
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: ["Host": "upstream"])
        let response = try await client.execute(head, body: AsyncStream<ByteBuffer>?.none, deadline: .now() + deadline)
        let body = try await response.collect(upTo: 1 << 20)
        return Answer(status: Int(response.head.status.code), headers: response.head.headers, body: String(buffer: body))
    }

    @Test("the connection limit is the configured one (64 by default, not the client library's 8), and at least 1")
    func connectionLimit() throws {
        let upstream = try GateUpstream("http://127.0.0.1:9000")
        #expect(UpstreamClient.Configuration(try Self.configuration(), upstream: upstream).maximumConnections == 64)
        #expect(UpstreamClient.Configuration(try Self.configuration(maximumUpstreamConnections: 200), upstream: upstream).maximumConnections == 200)
        #expect(UpstreamClient.Configuration(try Self.configuration(maximumUpstreamConnections: 0), upstream: upstream).maximumConnections == 1)
    }

    @Test("the upstream idle timeout reaches the client's configuration, and a timeout that is not positive is refused")
    func upstreamIdleTimeoutSetting() throws {
        var configuration = try Self.configuration()
        configuration.upstreamIdleTimeout = .milliseconds(1500)
        #expect(UpstreamClient.Configuration(configuration, upstream: try GateUpstream("http://127.0.0.1:9000")).idleTimeout == .milliseconds(1500))
        try configuration.validate()
        configuration.upstreamIdleTimeout = .zero
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
    }

    @Test("redirects are never followed, refused connections never retried, bodies never decompressed")
    func neverFollowsOrRetries() async throws {
        let gzipped = "\u{1F}\u{8B}\u{08}\u{00}not-really-gzip"
        try await Self.withScriptedUpstream(answer: { _, target in
            target == "/moved"
                ? .bytes("HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n")
                : .bytes(Self.ok(gzipped, "Content-Encoding: gzip\r\n"))
        }) { upstream, client in
            let moved = try await Self.get(client, "/moved")
            #expect(moved.status == 302)
            #expect(moved.headers["location"] == ["/elsewhere"])
            let compressed = try await Self.get(client, "/file")
            #expect(compressed.headers["content-encoding"] == ["gzip"])
            #expect(compressed.body == gzipped)
            #expect(upstream.snapshot.requests.map(\.target) == ["/moved", "/file"], "the redirect was not followed")
        }

        let closed = try freeLoopbackPort()
        var configuration = try Self.configuration()
        configuration.connectTimeout = .seconds(5)
        let refused = try UpstreamClient(configuration: .init(configuration, upstream: try GateUpstream("http://127.0.0.1:\(closed)")))
        let started = ContinuousClock.now
        await #expect(throws: (any Error).self) { try await Self.get(refused, "/") }
        #expect(ContinuousClock.now - started < .seconds(2), "a refused connection fails at once")
        #expect(refused.pool.openConnections == 0)
        await refused.shutdown()
    }

    @Test("keep-alive: sequential requests share one connection, with Content-Length or chunked bodies, targets byte for byte")
    func reusesConnections() async throws {
        try await Self.withScriptedUpstream(answer: { index, target in
            index % 2 == 0
                ? .bytes(Self.ok("answer \(index) for \(target)"))
                : .bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nchunk\r\n3\r\ned!\r\n0\r\n\r\n")
        }) { upstream, client in
            let targets = ["/a%2Fb?x=%26&y=%2526", "/p;q=1?z=a+b", "/a//b/./c?x=1", "/", "/x"]
            for (index, target) in targets.enumerated() {
                let answer = try await Self.get(client, target)
                #expect(answer.body == (index % 2 == 0 ? "answer \(index) for \(target)" : "chunked!"))
            }
            let counts = upstream.snapshot
            #expect(counts.accepted == 1)
            #expect(counts.requests.map(\.target) == targets)
        }
    }

    @Test(
        "a response framed by the connection's close, or with Connection: close, or HTTP/1.0, is read whole and its connection never reused",
        arguments: [
            "HTTP/1.1 200 OK\r\n\r\nuntil the end",
            "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 13\r\n\r\nuntil the end",
            "HTTP/1.0 200 OK\r\nContent-Length: 13\r\n\r\nuntil the end",
        ]
    )
    func closesUnframed(response: String) async throws {
        try await Self.withScriptedUpstream(answer: { _, _ in .bytesThenClose(response) }) { (upstream, client) async throws in
            for _ in 0..<3 {
                #expect(try await Self.get(client, "/").body == "until the end")
            }
            #expect(upstream.snapshot.accepted == 3)
        }
    }

    @Test("bytes after a response (a second, unasked-for response) close the connection: the next request never reads them")
    func smuggledResponseClosesTheConnection() async throws {
        try await Self.withScriptedUpstream(maximumConnections: 1, answer: { index, _ in
            index == 0 ? .bytes(Self.ok("hello") + Self.ok("smuggled")) : .bytes(Self.ok("fresh \(index)"))
        }) { (upstream, client) async throws in
            #expect(try await Self.get(client, "/first").body == "hello")
            #expect(try await Self.get(client, "/second").body == "fresh 1")
            #expect(upstream.snapshot.accepted == 2)
        }
    }

    @Test(
        "a response the decoder refuses fails the request and closes its connection",
        arguments: [
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
            "NOT HTTP AT ALL\r\n\r\n",
        ]
    )
    func badFramingFails(response: String) async throws {
        try await Self.withScriptedUpstream(maximumConnections: 1, answer: { index, _ in index == 0 ? .bytes(response) : .bytes(Self.ok("fine")) }) { (upstream, client) async throws in
            await #expect(throws: (any Error).self) { try await Self.get(client, "/") }
            #expect(try await Self.get(client, "/").body == "fine")
            #expect(upstream.snapshot.accepted == 2)
        }
    }

    @Test("an idle connection the upstream closed is dropped: the next request opens another")
    func upstreamClosesIdleConnection() async throws {
        try await Self.withScriptedUpstream(answer: { index, _ in .bytesThenClose(Self.ok("one \(index)")) }) { upstream, client in
            #expect(try await Self.get(client, "/").body == "one 0")
            try await Task.sleep(for: .milliseconds(200))
            #expect(client.pool.openConnections == 0)
            #expect(try await Self.get(client, "/").body == "one 1")
            #expect(upstream.snapshot.accepted == 2)
        }
    }

    @Test(
        "a GET, HEAD or OPTIONS whose kept-alive connection closed or reset before any answer is sent again on another connection",
        arguments: [HTTPMethod.GET, .HEAD, .OPTIONS], [ScriptedUpstream.Answer.close, .reset]
    )
    func repeatsSafeRequestAfterStaleConnection(method: HTTPMethod, ending: ScriptedUpstream.Answer) async throws {
        try await Self.withScriptedUpstream(answer: { index, _ in
            switch index {
            case 0: .bytes(Self.ok("answer 0"))
            case 1: ending
            default: .bytes(method == .HEAD ? "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n" : Self.ok("answer \(index)"))
            }
        }) { (upstream, client) async throws in
            #expect(try await Self.get(client, "/first").body == "answer 0")
            let head = HTTPRequestHead(version: .http1_1, method: method, uri: "/second", headers: ["Host": "upstream"])
            var failures: [String] = []
            let response = try await client.execute(head, body: AsyncStream<ByteBuffer>?.none, deadline: .now() + .seconds(5)) { error in
                failures.append(GateProxy.errorCode(error))
            }
            #expect(response.head.status == .ok)
            #expect(failures.count == 1, "the caller hears of the one repeat: \(failures)")
            _ = try await response.collect(upTo: 100)
            let counts = upstream.snapshot
            #expect(counts.requests.map(\.target) == ["/first", "/second", "/second"])
            #expect(counts.requests.map(\.connection) == [1, 1, 2], "sent again on a new connection: no other was idle")
            #expect(counts.accepted == 2)
        }
    }

    @Test("a request is never sent twice on a new connection, with a body, as a POST or DELETE, or after part of its answer")
    func neverRepeatsOtherRequests() async throws {
        // A new connection that closes without an answer: the failure is final.
        try await Self.withScriptedUpstream(answer: { _, _ in .close }) { (upstream, client) async throws in
            await #expect(throws: UpstreamClientError.connectionClosed) { try await Self.get(client, "/") }
            #expect(upstream.snapshot.requests.count == 1)
        }
        // A reused connection: only the safe method without a body would be sent again.
        let requests: [(HTTPMethod, [ByteBuffer]?)] = [(.POST, [ByteBuffer(string: "form")]), (.POST, nil), (.DELETE, nil), (.GET, [ByteBuffer(string: "x")])]
        for (method, body) in requests {
            try await Self.withScriptedUpstream(answer: { index, _ in index == 1 ? .close : .bytes(Self.ok("answer \(index)")) }) { (upstream, client) async throws in
                #expect(try await Self.get(client, "/first").body == "answer 0")
                var headers: HTTPHeaders = ["Host": "upstream"]
                UpstreamClient.frame(&headers, bodyLength: body.map { $0.reduce(0) { $0 + $1.readableBytes } }, hasBody: body != nil)
                let head = HTTPRequestHead(version: .http1_1, method: method, uri: "/second", headers: headers)
                await #expect(throws: (any Error).self, "\(method) with body \(body != nil)") {
                    _ = try await client.execute(head, body: body?.async, deadline: .now() + .seconds(5))
                }
                #expect(upstream.snapshot.requests.count == 2, "\(method) with body \(body != nil) was sent once")
            }
        }
        // Part of a response, then the close: the decoder's error, never a repeat.
        try await Self.withScriptedUpstream(answer: { index, _ in
            index == 1 ? .bytesThenClose("HTTP/1.1 200 OK\r\nContent-Le") : .bytes(Self.ok("answer \(index)"))
        }) { (upstream, client) async throws in
            #expect(try await Self.get(client, "/first").body == "answer 0")
            await #expect(throws: (any Error).self) { try await Self.get(client, "/second") }
            #expect(upstream.snapshot.requests.count == 2)
        }
    }

    @Test("the decision to send again, error by error: a close or reset of a reused connection only, never a timeout or a refusal")
    func sentAgainDecision() {
        let get = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: [:])
        #expect(UpstreamClient.isSentAgain(get, hasBody: false, after: UpstreamClientError.connectionClosed, onReusedConnection: true))
        #expect(UpstreamClient.isSentAgain(get, hasBody: false, after: IOError(errnoCode: ECONNRESET, reason: "read"), onReusedConnection: true))
        #expect(UpstreamClient.isSentAgain(get, hasBody: false, after: IOError(errnoCode: EPIPE, reason: "write"), onReusedConnection: true))
        #expect(!UpstreamClient.isSentAgain(get, hasBody: false, after: UpstreamClientError.connectionClosed, onReusedConnection: false))
        #expect(!UpstreamClient.isSentAgain(get, hasBody: false, after: IOError(errnoCode: ECONNREFUSED, reason: "connect"), onReusedConnection: true))
        for other in [UpstreamClientError.responseHeadTimeout, .readTimeout, .poolWaitTimeout, .connectTimeout, .invalidResponse, .shutDown] {
            #expect(!UpstreamClient.isSentAgain(get, hasBody: false, after: other, onReusedConnection: true), "\(other)")
        }
        #expect(!UpstreamClient.isSentAgain(get, hasBody: false, after: HTTPParserError.invalidEOFState, onReusedConnection: true))
        #expect(!UpstreamClient.isSentAgain(get, hasBody: true, after: UpstreamClientError.connectionClosed, onReusedConnection: true))
    }

    @Test("a connection idle longer than the upstream idle timeout is closed by the gate, not reused; one idle less long is reused")
    func idleTimeoutClosesPooledConnections() async throws {
        try await Self.withScriptedUpstream(idleTimeout: .milliseconds(300), answer: { index, _ in .bytes(Self.ok("answer \(index)")) }) { (upstream, client) async throws in
            #expect(try await Self.get(client, "/a").body == "answer 0")
            try await Task.sleep(for: .milliseconds(50))
            #expect(try await Self.get(client, "/b").body == "answer 1")
            #expect(upstream.snapshot.accepted == 1, "idle for 50 ms: reused")
            try await Task.sleep(for: .milliseconds(600))
            #expect(try await Self.get(client, "/c").body == "answer 2")
            let counts = upstream.snapshot
            #expect(counts.accepted == 2, "idle for 600 ms: a new connection")
            #expect(counts.requests.map(\.connection) == [1, 1, 2])
            // The gate closed the expired one (the upstream never does here).
            for _ in 0..<50 where upstream.snapshot.closed < 1 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(upstream.snapshot.closed == 1)
            #expect(client.pool.openConnections == 1)
        }
    }

    @Test("concurrent requests never exceed the bound and never share a connection at once")
    func boundedAndNeverShared() async throws {
        try await Self.withScriptedUpstream(maximumConnections: 2, answer: { index, _ in .delayed(.milliseconds(100), Self.ok("slow \(index)")) }) { upstream, client in
            let bodies = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<6 { group.addTask { try await Self.get(client, "/").body } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(bodies) == Set((0..<6).map { "slow \($0)" }))
            let counts = upstream.snapshot
            #expect(counts.accepted == 2)
            #expect(counts.mostInFlightOnOneConnection == 1)
        }
    }

    @Test("the read timeout measures silence: a body that keeps coming outlasts it many times over; a pause longer than it ends the exchange")
    func readTimeoutMeasuresSilence() async throws {
        let steady = (0..<6).map { _ in (Duration.milliseconds(200), "x") }
        try await Self.withScriptedUpstream(maximumConnections: 1, readTimeout: .milliseconds(500), answer: { _, target in
            let head = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n"
            return target == "/steady"
                ? .trickle([(.zero, head)] + steady)
                : .trickle([(.zero, head + "x"), (.milliseconds(200), "x"), (.milliseconds(1500), "xxxx")])
        }) { upstream, client in
            let started = ContinuousClock.now
            let whole = try await Self.get(client, "/steady", within: .seconds(5))
            #expect(whole.body == "xxxxxx", "a body arriving every 200 ms took 1.2 s in all, never 500 ms of silence")
            #expect(ContinuousClock.now - started >= .milliseconds(1100))
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/pauses", headers: ["Host": "upstream"])
            let pausing = try await client.execute(head, body: AsyncStream<ByteBuffer>?.none, deadline: .now() + .seconds(5))
            var received = ""
            let paused = ContinuousClock.now
            await #expect(throws: UpstreamClientError.readTimeout) {
                while true {
                    let chunks = try await pausing.nextChunks()
                    if chunks.isEmpty { break }
                    received += chunks.map { String(buffer: $0) }.joined()
                }
            }
            #expect(received == "xx", "the bytes before the pause were delivered")
            #expect(ContinuousClock.now - paused < .milliseconds(1400), "the timeout came at 500 ms of silence, not at the next byte (1.5 s)")
            pausing.release()
        }
    }

    @Test("no response head before the deadline, a silent body, or no free connection in time: each is a timeout")
    func timeouts() async throws {
        try await Self.withScriptedUpstream(maximumConnections: 1, readTimeout: .milliseconds(500), answer: { _, target in
            switch target {
            case "/silent": .silence
            case "/stalls": .bytes("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial")
            default: .bytes(Self.ok("fine"))
            }
        }) { upstream, client in
            var started = ContinuousClock.now
            await #expect(throws: UpstreamClientError.responseHeadTimeout) { try await Self.get(client, "/silent", within: .milliseconds(300)) }
            #expect(ContinuousClock.now - started < .seconds(2))

            started = ContinuousClock.now
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/stalls", headers: ["Host": "upstream"])
            let stalled = try await client.execute(head, body: AsyncStream<ByteBuffer>?.none, deadline: .now() + .seconds(5))
            #expect(try await stalled.nextChunks().map { String(buffer: $0) } == ["partial"])
            await #expect(throws: UpstreamClientError.readTimeout) { try await stalled.nextChunks() }
            #expect(ContinuousClock.now - started < .seconds(2))
            stalled.release()

            // The only connection is held by a request nobody answers: the next waits, then gives up.
            let held = Task { try await Self.get(client, "/silent", within: .seconds(3)) }
            try await Task.sleep(for: .milliseconds(100))
            await #expect(throws: UpstreamClientError.poolWaitTimeout) { try await Self.get(client, "/", within: .milliseconds(300)) }
            _ = await held.result
            #expect(try await Self.get(client, "/").body == "fine")
            #expect(UpstreamClientError.poolWaitTimeout.isTimeout && UpstreamClientError.readTimeout.isTimeout && !UpstreamClientError.connectionClosed.isTimeout)
        }
    }

    @Test("a body over the reader's limit fails; cut off before its end, its connection is closed, not reused")
    func bodyLimit() async throws {
        try await Self.withScriptedUpstream(answer: { index, _ in
            index == 0 ? .bytes(Self.ok(String(repeating: "x", count: 500_000))) : .bytes(Self.ok("small"))
        }) { upstream, client in
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: ["Host": "upstream"])
            let response = try await client.execute(head, body: AsyncStream<ByteBuffer>?.none, deadline: .now() + .seconds(5))
            await #expect(throws: UpstreamClientError.bodyTooLarge) { try await response.collect(upTo: 1000) }
            #expect(try await Self.get(client, "/").body == "small")
            #expect(upstream.snapshot.accepted == 2)
        }
    }

    @Test("a reader slower than the read timeout is not the upstream's silence: the socket waits, nothing times out")
    func slowReaderIsNoTimeout() async throws {
        let size = 1_000_000
        // Generous against a loaded machine: the reader's pauses are 1.5 times the timeout.
        try await Self.withScriptedUpstream(readTimeout: .seconds(1), answer: { _, _ in .bytes(Self.ok(String(repeating: "y", count: size))) }) { upstream, client in
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: ["Host": "upstream"])
            let response = try await client.execute(head, body: AsyncStream<ByteBuffer>?.none, deadline: .now() + .seconds(5))
            var total = 0
            var pulls = 0
            while true {
                let chunks = try await response.nextChunks()
                if chunks.isEmpty { break }
                total += chunks.reduce(0) { $0 + $1.readableBytes }
                pulls += 1
                // Bounded: the watermark, plus what one read event takes (NIO's default: up to 4
                // reads of at most 64 KiB) before reading stops.
                #expect(chunks.reduce(0) { $0 + $1.readableBytes } <= UpstreamConnectionHandler.bufferHighWatermark + 4 * 65536, "the buffer stays bounded")
                if pulls <= 2 { try await Task.sleep(for: .milliseconds(1500)) }
            }
            #expect(total == size)
            #expect(try await Self.get(client, "/").body.count == size)
            #expect(upstream.snapshot.accepted == 1)
        }
    }

    @Test("a HEAD response announces a length and has no body: it ends at once and its connection is reused")
    func headResponse() async throws {
        try await Self.withScriptedUpstream(answer: { index, _ in
            index == 0 ? .bytes("HTTP/1.1 200 OK\r\nContent-Length: 12345\r\n\r\n") : .bytes(Self.ok("after"))
        }) { upstream, client in
            let head = HTTPRequestHead(version: .http1_1, method: .HEAD, uri: "/", headers: ["Host": "upstream"])
            let response = try await client.execute(head, body: AsyncStream<ByteBuffer>?.none, deadline: .now() + .seconds(5))
            #expect(response.head.headers["content-length"] == ["12345"])
            #expect(try await response.nextChunks().isEmpty)
            #expect(try await Self.get(client, "/").body == "after")
            #expect(upstream.snapshot.accepted == 1)
        }
    }

    @Test("a request body streams upstream with the framing the gate sets, and the connection is reused after it")
    func requestBody() async throws {
        try await Self.withScriptedUpstream(answer: { index, _ in .bytes(Self.ok("got \(index)")) }) { upstream, client in
            var headers: HTTPHeaders = ["Host": "upstream", "Content-Length": "999", "Transfer-Encoding": "gzip"]
            UpstreamClient.frame(&headers, bodyLength: 12, hasBody: true)
            #expect(headers["content-length"] == ["12"] && headers["transfer-encoding"].isEmpty)
            let chunks = [ByteBuffer(string: "hello "), ByteBuffer(string: "world!")]
            let head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/upload", headers: headers)
            let response = try await client.execute(head, body: chunks.async, deadline: .now() + .seconds(5))
            #expect(String(buffer: try await response.collect(upTo: 100)) == "got 0")
            #expect(try await Self.get(client, "/after").body == "got 1")
            #expect(upstream.snapshot.accepted == 1)
            var none: HTTPHeaders = ["Content-Length": "5"]
            UpstreamClient.frame(&none, bodyLength: nil, hasBody: false)
            #expect(none["content-length"].isEmpty)
            var unknown: HTTPHeaders = [:]
            UpstreamClient.frame(&unknown, bodyLength: nil, hasBody: true)
            #expect(unknown["transfer-encoding"] == ["chunked"])
        }
    }

    @Test("through the gate: requests reuse one upstream connection, small and streamed; a response the decoder refuses gives 502 and a new connection")
    func throughTheGate() async throws {
        let large = String(repeating: "z", count: 300 * 1024)  // over the gate's response buffer: streamed
        let upstream = try await ScriptedUpstream { index, target in
            switch target {
            case "/bad": .bytes("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!")
            case "/large": .bytes(Self.ok(large))
            default: .bytes(Self.ok("page \(index)"))
            }
        }
        try await withGate(mode: .reverseProxy(upstream: try GateUpstream(upstream.origin))) { publicURL, client in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            for index in 0..<3 {
                let reply = try await client.send(publicURL.description + "page", headers: [("Cookie", cookie)])
                #expect(reply.status == 200)
                #expect(reply.body == "page \(index)")
            }
            let streamed = try await client.send(publicURL.description + "large", headers: [("Cookie", cookie)])
            #expect(streamed.status == 200)
            #expect(streamed.body.count == large.count)
            #expect(try await client.send(publicURL.description + "page", headers: [("Cookie", cookie)]).status == 200)
            #expect(upstream.snapshot.accepted == 1)
            let bad = try await client.send(publicURL.description + "bad", headers: [("Cookie", cookie)])
            #expect(bad.status == 502)
            #expect(try await client.send(publicURL.description + "page", headers: [("Cookie", cookie)]).status == 200)
            #expect(upstream.snapshot.accepted == 2)
            #expect(upstream.snapshot.mostInFlightOnOneConnection == 1)
        }
        // The gate stopped: its upstream connections are closed.
        var closed = false
        for _ in 0..<20 where !closed {
            try await Task.sleep(for: .milliseconds(50))
            closed = upstream.snapshot.closed == upstream.snapshot.accepted
        }
        #expect(closed, "every upstream connection closed when the gate stopped")
        try await upstream.stop()
    }

    @Test("an upstream that answers before the body is sent: its answer is returned by the deadline, the body is never ended, the connection never reused")
    func earlyAnswer() async throws {
        // The scripted server answers a request without Content-Length at its head: early.
        try await Self.withScriptedUpstream(answer: { index, _ in .bytes(Self.ok("early \(index)")) }) { upstream, client in
            let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream()
            continuation.yield(ByteBuffer(string: "hello"))
            var headers: HTTPHeaders = ["Host": "upstream"]
            UpstreamClient.frame(&headers, bodyLength: nil, hasBody: true)
            let head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/upload", headers: headers)
            let started = ContinuousClock.now
            let response = try await client.execute(head, body: stream, deadline: .now() + .milliseconds(500))
            #expect(ContinuousClock.now - started < .seconds(3))
            #expect(String(buffer: try await response.collect(upTo: 100)) == "early 0")
            #expect(try await Self.get(client, "/after").body == "early 1")
            #expect(upstream.snapshot.accepted == 2, "the connection with the unfinished body was not reused")
            let sent = upstream.snapshot.received[1] ?? ""
            #expect(sent.contains("5\r\nhello\r\n"))
            #expect(!sent.contains("0\r\n\r\n"), "the cut-short body was never ended as if whole")
            continuation.finish()
        }
    }

    @Test("shutdown closes the idle connections and refuses later requests")
    func shutdown() async throws {
        let upstream = try await ScriptedUpstream { _, _ in .bytes(Self.ok("fine")) }
        let client = try Self.client(upstream)
        #expect(try await Self.get(client, "/").body == "fine")
        #expect(client.pool.openConnections == 1)
        await client.shutdown()
        #expect(client.pool.openConnections == 0)
        await #expect(throws: UpstreamClientError.shutDown) { try await Self.get(client, "/") }
        var closed = false
        for _ in 0..<20 where !closed {
            try await Task.sleep(for: .milliseconds(50))
            closed = upstream.snapshot.closed == 1
        }
        #expect(closed, "the upstream saw the connection closed")
        try await upstream.stop()
    }
}
