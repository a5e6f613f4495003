import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization
import WebAppLaunchReload

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The gate's HTTP/1.1 client to its one upstream origin, on SwiftNIO channels: a bounded
/// keep-alive pool (``UpstreamPoolStateMachine``), the request target sent byte for byte,
/// bodies streamed both ways with backpressure.
///
/// What it never does, by construction: follow a redirect (a 3xx is a response like any
/// other), retry a connection attempt, decompress a body, or parse a URL.
/// A connection is reused only after a complete, well-framed response on a connection both
/// sides keep alive, and never carries two requests at once.
///
/// A request is sent again, on another connection, in one case only
/// (``isSentAgain(_:hasBody:after:onReusedConnection:)``): a `GET`, `HEAD` or `OPTIONS` without
/// a body whose kept-alive connection closed or reset before a byte of its response arrived.
/// That is the race every keep-alive client meets: the upstream's idle timeout closes the
/// connection as the request goes out (Node's 5 s, gunicorn's 2 s). RFC 9110 §9.2.2 lets a
/// client repeat such a request; nginx does the same. Nothing else is sent twice: not a
/// request whose connection was new, one with a body or of another method, nor one after a
/// response byte or a timeout.
public final class UpstreamClient: Sendable {
    /// The client's settings, taken from the gate's configuration.
    public struct Configuration: Sendable {
        /// The upstream origin.
        public var upstream: GateUpstream
        /// The most connections open at once (at least 1); requests beyond wait for one.
        public var maximumConnections: Int
        /// How long a connection attempt may take (then ``UpstreamClientError/connectTimeout``).
        public var connectTimeout: Duration
        /// How long the upstream may stay silent while a response is awaited or read.
        public var readTimeout: Duration
        /// How long a connection stays idle for reuse before it is closed.
        public var idleTimeout: Duration
        /// Who vouches for an `https` upstream's certificate.
        public var trust: UpstreamTrust

        /// The settings for a gate in front of `upstream`.
        /// - Parameters:
        ///   - configuration: The gate's configuration (connection count and timeouts).
        ///   - upstream: The upstream origin.
        public init(_ configuration: GateConfiguration, upstream: GateUpstream) {
            self.upstream = upstream
            self.maximumConnections = max(1, configuration.maximumUpstreamConnections)
            self.connectTimeout = configuration.connectTimeout
            self.readTimeout = configuration.readTimeout
            self.idleTimeout = configuration.upstreamIdleTimeout
            self.trust = configuration.upstreamTrust
        }
    }

    /// The settings in use.
    public let configuration: Configuration
    let pool: UpstreamPool

    /// Creates a client; no connection is opened before the first request.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - group: The event loops connections run on (NIO's shared group by default, the one
    ///     the gate's server and Swift concurrency run on).
    ///   - logger: Where a reload of the upstream's trusted authorities logs its one line.
    ///   - metricsFactory: Where that reload is counted; the global metrics system by default.
    /// - Throws: ``ConfigurationError`` when the trusted certificates of an `https` upstream
    ///   cannot be read, or NIOSSL's error when its TLS context cannot be created.
    public init(
        configuration: Configuration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "webapp-launch.gate"),
        metricsFactory: (any MetricsFactory)? = nil
    ) throws {
        self.configuration = configuration
        self.pool = try UpstreamPool(configuration: configuration, group: group, logger: logger, metricsFactory: metricsFactory)
    }

    /// The trusted authorities of an `https` upstream, read again on a reload (SIGHUP) with
    /// the checks of startup (a file that would not start keeps the ones in use); `nil` for
    /// `http`. Connections authenticated under replaced authorities are not used again.
    public var trustReload: (any Reloadable)? { pool.tls }

    /// Sends one request and returns its response head, with the body to read.
    /// - Parameters:
    ///   - head: The request head: its target goes upstream exactly as given; its fields
    ///     must frame `body` (``frame(_:bodyLength:hasBody:)``).
    ///   - body: The request body, streamed chunk by chunk (each written before the next is
    ///     asked for); `nil` for none. An error it throws ends the exchange with that error.
    ///   - deadline: When the response head must have arrived, waiting for a connection
    ///     included (then ``UpstreamClientError/responseHeadTimeout`` or
    ///     ``UpstreamClientError/poolWaitTimeout``).
    ///   - sentAgain: Told the error of a kept-alive connection that failed before the request
    ///     goes out again (``isSentAgain(_:hasBody:after:onReusedConnection:)``), for the log.
    /// - Returns: The response; read its body or drop it (either gives the connection back).
    func execute<Body: AsyncSequence & Sendable>(
        _ head: HTTPRequestHead,
        body: Body?,
        deadline: NIODeadline,
        sentAgain: (any Error) -> Void = { _ in }
    ) async throws -> UpstreamResponse where Body.Element == ByteBuffer {
        // Bounded: each repeat follows the failure of a reused connection, which that failure
        // closed; a new connection's failure is final; the deadline holds over all of them.
        var repeats = 0
        while true {
            let lease = try await pool.lease(deadline: deadline)
            do {
                return try await exchange(head, body: body, on: lease.connection, deadline: deadline)
            } catch where repeats < configuration.maximumConnections
                && Self.isSentAgain(head, hasBody: body != nil, after: error, onReusedConnection: lease.isReused)
            {
                repeats += 1
                sentAgain(error)
            }
        }
    }

    /// Whether a request that failed is sent again: only a `GET`, `HEAD` or `OPTIONS` without
    /// a body, on a connection that served an earlier request, closed (or reset) before any
    /// byte of its response came (a response's first bytes followed by a close are a parse
    /// error of the decoder, never this).
    static func isSentAgain(_ head: HTTPRequestHead, hasBody: Bool, after error: any Error, onReusedConnection: Bool) -> Bool {
        guard onReusedConnection, !hasBody, [.GET, .HEAD, .OPTIONS].contains(head.method) else { return false }
        switch error {
        case UpstreamClientError.connectionClosed: return true
        case let error as IOError: return error.errnoCode == ECONNRESET || error.errnoCode == EPIPE
        default: return false
        }
    }

    /// One request on one leased connection: its response, or the error that ended it (the
    /// connection then closed and given back).
    private func exchange<Body: AsyncSequence & Sendable>(
        _ head: HTTPRequestHead,
        body: Body?,
        on connection: UpstreamConnection,
        deadline: NIODeadline
    ) async throws -> UpstreamResponse where Body.Element == ByteBuffer {
        let headFuture = connection.start(head, sendsBody: body != nil, responseDeadline: deadline)
        do {
            let responseHead: HTTPResponseHead
            if let body {
                responseHead = try await Self.send(body, on: connection, awaiting: headFuture, deadline: deadline)
            } else {
                responseHead = try await headFuture.get()
            }
            return UpstreamResponse(head: responseHead, connection: connection, pool: pool)
        } catch {
            connection.close(error)
            pool.release(connection, reusable: false)
            // A timeout closes the connection, which fails a body write too: the timeout is
            // what happened, whichever of the two was reported first.
            if !(error is UpstreamClientError) {
                do { _ = try await headFuture.get() } catch let headError as UpstreamClientError where headError.isTimeout { throw headError } catch {}
            }
            throw error
        }
    }

    /// Closes every connection; later requests fail with ``UpstreamClientError/shutDown``.
    public func shutdown() async {
        await pool.shutDown()
    }

    /// Sets the framing fields of a request head from what the gate will send: exactly one
    /// `Content-Length` for a body of known length, `Transfer-Encoding: chunked` for one of
    /// unknown length, neither without a body. The client's own framing fields are never
    /// trusted for this.
    static func frame(_ headers: inout HTTPHeaders, bodyLength: Int?, hasBody: Bool) {
        headers.remove(name: "content-length")
        headers.remove(name: "transfer-encoding")
        guard hasBody else {
            if bodyLength == 0 { headers.add(name: "content-length", value: "0") }
            return
        }
        if let bodyLength {
            headers.add(name: "content-length", value: String(bodyLength))
        } else {
            headers.add(name: "transfer-encoding", value: "chunked")
        }
    }

    /// What finished first while a request body is sent.
    private enum SendOutcome: Sendable {
        case head(HTTPResponseHead)
        case bodySent
        case deadline
    }

    /// Streams `body` while waiting for the response head, and returns the head once the
    /// body is sent too. A head that arrives first (the upstream answered early) does not stop
    /// the body: the client's request is still read and sent to its end (so its connection
    /// stays usable and its scanner sees every byte), until the response deadline; a body
    /// still unsent then is abandoned, and the connection is not reused.
    private static func send<Body: AsyncSequence & Sendable>(
        _ body: Body,
        on connection: UpstreamConnection,
        awaiting headFuture: EventLoopFuture<HTTPResponseHead>,
        deadline: NIODeadline
    ) async throws -> HTTPResponseHead where Body.Element == ByteBuffer {
        try await withThrowingTaskGroup(of: SendOutcome.self) { group in
            group.addTask {
                do {
                    for try await chunk in body {
                        try Task.checkCancellation()
                        try await connection.write(chunk)
                    }
                    // A body sequence may end early on cancellation (AsyncStream does): never
                    // end a request whose body was cut short, or the upstream takes it as whole.
                    try Task.checkCancellation()
                    try await connection.endRequest()
                    return .bodySent
                } catch is CancellationError {
                    // The deadline passed after the head arrived (or the request was
                    // abandoned): the request stays unfinished, so the connection is closed
                    // after its response, never reused.
                    throw CancellationError()
                } catch {
                    // The head waits on the connection: closing it ends that wait too.
                    connection.close(error)
                    throw error
                }
            }
            group.addTask { .head(try await headFuture.get()) }
            var head: HTTPResponseHead?
            var bodySent = false
            while let outcome = try await group.next() {
                switch outcome {
                case .head(let received):
                    head = received
                    if bodySent { return received }
                    group.addTask {
                        let remaining = max(0, (deadline - .now()).nanoseconds)
                        try? await Task.sleep(for: .nanoseconds(remaining))
                        return .deadline
                    }
                case .bodySent:
                    bodySent = true
                    if let head {
                        group.cancelAll()
                        return head
                    }
                case .deadline:
                    if let head {
                        group.cancelAll()
                        return head
                    }
                }
            }
            throw UpstreamClientError.connectionClosed
        }
    }
}

/// A response from the upstream: its head, and its body to read once. The connection goes
/// back to the pool as soon as the end of the body has been read (reused when the exchange
/// was clean); a response released or dropped before its end closes it.
final class UpstreamResponse: Sendable {
    let head: HTTPResponseHead
    private let connection: UpstreamConnection
    private let pool: UpstreamPool
    // Invariants: `ended` is set once the end was read; `givenBack` once the connection went
    // back to the pool, exactly once. After either, the connection is never touched again
    // through this response (it may serve another request already).
    private let ended = Atomic<Bool>(false)
    private let givenBack = Atomic<Bool>(false)

    init(head: HTTPResponseHead, connection: UpstreamConnection, pool: UpstreamPool) {
        self.head = head
        self.connection = connection
        self.pool = pool
    }

    /// The next body bytes; an empty array at the end of the body. Read by one reader at a
    /// time; completes on the connection's event loop (at once when called there and bytes
    /// are buffered), so the event-loop proxy reads without leaving its thread.
    func nextChunksOnLoop() -> EventLoopFuture<[ByteBuffer]> {
        if let settled { return connection.channel.eventLoop.makeCompletedFuture(settled) }
        let promise = connection.channel.eventLoop.makePromise(of: [ByteBuffer].self)
        connection.nextChunks { [self] read in promise.completeWith(read.map(take)) }
        return promise.futureResult
    }

    /// The whole body, when it has at most `limit` bytes (else ``UpstreamClientError/bodyTooLarge``).
    func collectOnLoop(upTo limit: Int) -> EventLoopFuture<ByteBuffer> {
        let promise = connection.channel.eventLoop.makePromise(of: ByteBuffer.self)
        collect(upTo: limit) { promise.completeWith($0) }
        return promise.futureResult
    }

    /// Gives `onBody` the whole body on the connection's event loop, when it has at most
    /// `limit` bytes (else ``UpstreamClientError/bodyTooLarge``): the event loop's proxy
    /// collects a small response without a future.
    func collect(upTo limit: Int, onBody: @escaping @Sendable (Result<ByteBuffer, any Error>) -> Void) {
        collect(into: nil, upTo: limit, onBody: onBody)
    }

    /// Pulls until the pull that brings the end: a body buffered whole by then (every small
    /// response) is collected in one pull, with no pull more to learn that it ended.
    private func collect(into whole: ByteBuffer?, upTo limit: Int, onBody: @escaping @Sendable (Result<ByteBuffer, any Error>) -> Void) {
        if let settled {
            onBody(settled.map { _ in whole ?? ByteBuffer() })
            return
        }
        connection.nextChunks { result in
            switch result {
            case .failure(let error):
                onBody(.failure(error))
            case .success(let read):
                var whole = whole
                for var chunk in self.take(read) {
                    guard (whole?.readableBytes ?? 0) + chunk.readableBytes <= limit else {
                        self.release()
                        onBody(.failure(UpstreamClientError.bodyTooLarge))
                        return
                    }
                    if whole == nil { whole = chunk } else { whole!.writeBuffer(&chunk) }
                }
                if read.end {
                    onBody(.success(whole ?? ByteBuffer()))
                } else {
                    self.collect(into: whole, upTo: limit, onBody: onBody)
                }
            }
        }
    }

    /// What a reader gets when nothing is left to pull: no bytes once the end was read, a
    /// closed connection once it went back without its end; `nil` while the body is read.
    private var settled: Result<[ByteBuffer], any Error>? {
        if ended.load(ordering: .acquiring) { return .success([]) }
        if givenBack.load(ordering: .acquiring) { return .failure(UpstreamClientError.connectionClosed) }
        return nil
    }

    /// A pull's bytes; the pull that brings the end also gives the connection back.
    private func take(_ read: UpstreamConnectionHandler.BodyRead) -> [ByteBuffer] {
        if read.end {
            ended.store(true, ordering: .releasing)
            giveBack(reusable: read.reusable)
        }
        return read.chunks
    }

    /// The next body bytes, for a task (``nextChunksOnLoop()``).
    func nextChunks() async throws -> [ByteBuffer] { try await nextChunksOnLoop().get() }

    /// The whole body, for a task (``collectOnLoop(upTo:)``).
    func collect(upTo limit: Int) async throws -> ByteBuffer { try await collectOnLoop(upTo: limit).get() }

    /// Done with the response before (or after) its end: an unfinished exchange closes the
    /// connection; after the end this does nothing.
    func release() { giveBack(reusable: false) }

    private func giveBack(reusable: Bool) {
        guard givenBack.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        pool.release(connection, reusable: reusable)
    }

    deinit { release() }
}

/// Why an exchange with the upstream failed, as far as the client knows it (errors of the
/// network or the HTTP decoder pass through as they are).
public enum UpstreamClientError: Error, Hashable, Sendable {
    /// No connection within the connect timeout.
    case connectTimeout
    /// No response head before the deadline.
    case responseHeadTimeout
    /// The upstream stayed silent longer than the read timeout.
    case readTimeout
    /// Every connection stayed busy until the deadline.
    case poolWaitTimeout
    /// The connection closed before the response ended.
    case connectionClosed
    /// The upstream sent what no request asked for, or switched protocols.
    case invalidResponse
    /// The body was larger than the reader accepts.
    case bodyTooLarge
    /// The client was shut down.
    case shutDown

    /// Whether the failure is a timeout (the gate answers 504; anything else is 502).
    public var isTimeout: Bool {
        switch self {
        case .connectTimeout, .responseHeadTimeout, .readTimeout, .poolWaitTimeout: true
        case .connectionClosed, .invalidResponse, .bodyTooLarge, .shutDown: false
        }
    }
}

/// Shuts the upstream client down once the service group stops, so no connection outlives
/// the gate.
struct UpstreamClientShutdownService: Service {
    let client: UpstreamClient

    func run() async throws {
        try? await gracefulShutdown()
        await client.shutdown()
    }
}
