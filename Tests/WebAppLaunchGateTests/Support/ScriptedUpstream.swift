import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A loopback server on SwiftNIO that answers each request with the bytes a test chooses,
/// framing mistakes included, and counts the connections it accepted and saw closed.
///
/// Requests are read by a deliberately small parser: a head up to the blank line, then a
/// `Content-Length` body, if any (the tests send no chunked bodies to it).
final class ScriptedUpstream: Sendable {
    /// What to send for one request.
    enum Answer: Sendable {
        /// These bytes, the connection kept open.
        case bytes(String)
        /// These bytes, then the connection closed.
        case bytesThenClose(String)
        /// These bytes after a delay.
        case delayed(Duration, String)
        /// Pieces, each after its delay from the one before.
        case trickle([(Duration, String)])
        /// Nothing, ever.
        case silence
        /// The connection closed at once, nothing sent: an upstream whose keep-alive timeout
        /// ended the connection just as the request arrived.
        case close
        /// The connection reset at once (`SO_LINGER` 0), nothing sent.
        case reset
    }

    struct Counts: Sendable {
        var accepted = 0
        var closed = 0
        /// Each request's target, in arrival order, with the connection's number.
        var requests: [(connection: Int, target: String)] = []
        /// The most requests that were waiting for an answer on one connection at once.
        var mostInFlightOnOneConnection = 0
        /// Every byte each connection received, by connection number (from 1).
        var received: [Int: String] = [:]
    }

    /// The counts, shared with every connection's handler.
    final class Box: Sendable {
        // Invariant: read and changed only under this mutex.
        let mutex = Mutex(Counts())
    }

    private let channel: any Channel
    let port: Int
    let counts: Box

    /// Starts the server; `answer` gets the request's index (from 0, over all connections) and target.
    init(answer: @escaping @Sendable (_ index: Int, _ target: String) -> Answer) async throws {
        let counts = Box()
        self.counts = counts
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                let number = counts.mutex.withLock { counts in
                    counts.accepted += 1
                    return counts.accepted
                }
                child.closeFuture.whenComplete { _ in counts.mutex.withLock { $0.closed += 1 } }
                return child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(ScriptedHandler(connection: number, counts: counts, answer: answer))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        port = channel.localAddress?.port ?? 0
    }

    var origin: String { "http://127.0.0.1:\(port)" }

    var snapshot: Counts { counts.mutex.withLock { $0 } }

    func stop() async throws { try await channel.close() }
}

private final class ScriptedHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let connection: Int
    let counts: ScriptedUpstream.Box
    let answer: @Sendable (Int, String) -> ScriptedUpstream.Answer
    var received: [UInt8] = []
    var inFlight = 0

    init(connection: Int, counts: ScriptedUpstream.Box, answer: @escaping @Sendable (Int, String) -> ScriptedUpstream.Answer) {
        self.connection = connection
        self.counts = counts
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data).readableBytesView
        received += bytes
        counts.mutex.withLock { $0.received[connection, default: ""] += String(decoding: bytes, as: UTF8.self) }
        while let (target, length) = nextRequest() {
            received.removeFirst(length)
            inFlight += 1
            let index = counts.mutex.withLock { counts in
                counts.requests.append((connection, target))
                counts.mostInFlightOnOneConnection = max(counts.mostInFlightOnOneConnection, inFlight)
                return counts.requests.count - 1
            }
            respond(answer(index, target), context: context)
        }
    }

    /// The next complete request in `received`: its target and its length in bytes.
    private func nextRequest() -> (String, Int)? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard received.count >= 4, let end = (0...(received.count - 4)).first(where: { Array(received[$0..<$0 + 4]) == separator }) else { return nil }
        let head = String(decoding: received[..<end], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        let target = requestLine.count > 1 ? String(requestLine[1]) : ""
        let length = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        let total = end + 4 + length
        return received.count >= total ? (target, total) : nil
    }

    private func respond(_ answer: ScriptedUpstream.Answer, context: ChannelHandlerContext) {
        switch answer {
        case .bytes(let text):
            inFlight -= 1
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text)), promise: nil)
        case .bytesThenClose(let text):
            inFlight -= 1
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        case .delayed(let delay, let text):
            context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) { [self] in
                inFlight -= 1
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text)), promise: nil)
            }
        case .trickle(let pieces):
            inFlight -= 1
            var delay = Duration.zero
            for (after, text) in pieces {
                delay += after
                context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) {
                    context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(string: text)), promise: nil)
                }
            }
        case .silence:
            break
        case .close:
            inFlight -= 1
            context.close(promise: nil)
        case .reset:
            inFlight -= 1
            guard let socket = context.channel as? any SocketOptionProvider else {
                context.close(promise: nil)
                return
            }
            socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in _: Whitespace) -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }

    fileprivate enum Whitespace { case whitespaces }
}
