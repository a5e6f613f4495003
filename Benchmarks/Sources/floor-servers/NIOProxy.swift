import NIOCore
import NIOHTTP1
import NIOPosix

// `floor-servers nio-proxy PORT UPSTREAM_PORT`: the least a reverse proxy on SwiftNIO pays,
// for scripts/bench-gate's reverse-proxy floor. SwiftNIO's HTTP/1 server pipeline on the
// client's side and its HTTP/1 client pipeline on the upstream's, one handler each, relaying
// every request head and response as they are: no session check, no header of its own, no
// pool (each client connection gets its own kept-alive upstream connection, on its own event
// loop, so a request never leaves its thread). What the gate's reverse proxy costs above this
// is the gate's own work and its framework.

/// The client's side: sends each request upstream as it came, and writes the upstream's
/// response back. Parts arriving before the upstream connection is up wait for it.
final class ProxyFrontHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let upstream: SocketAddress
    private var back: ProxyBackHandler?
    private var waiting: [HTTPClientRequestPart] = []
    private var keepAlive = true

    init(upstream: SocketAddress) {
        self.upstream = upstream
    }

    func channelActive(context: ChannelHandlerContext) {
        let back = ProxyBackHandler(front: self, frontContext: context)
        let loopBound = NIOLoopBound((self, back), eventLoop: context.eventLoop)
        ClientBootstrap(group: context.eventLoop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(loopBound.value.1)
                }
            }
            .connect(to: upstream)
            .assumeIsolated()
            .whenComplete { result in
                let (front, back) = loopBound.value
                switch result {
                case .success:
                    front.back = back
                    for part in front.waiting { back.send(part) }
                    front.waiting.removeAll()
                    back.flush()
                case .failure:
                    context.close(promise: nil)
                }
            }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        back?.close()
        // The two handlers hold each other: the cycle ends with the client's connection.
        back = nil
        waiting.removeAll()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            keepAlive = head.isKeepAlive
            send(.head(HTTPRequestHead(version: .http1_1, method: head.method, uri: head.uri, headers: head.headers)))
        case .body(let body):
            send(.body(.byteBuffer(body)))
        case .end:
            send(.end(nil))
            back?.flush()
        }
    }

    private func send(_ part: HTTPClientRequestPart) {
        if let back {
            back.send(part)
        } else {
            waiting.append(part)
        }
    }

    /// The upstream's response ended: the client's connection stays open if it asked so.
    func responseEnded(context: ChannelHandlerContext) {
        if !keepAlive { context.close(promise: nil) }
    }
}

/// The upstream's side: writes the client's parts, and each response part to the client.
final class ProxyBackHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let front: ProxyFrontHandler
    private let frontContext: ChannelHandlerContext
    private var context: ChannelHandlerContext?

    init(front: ProxyFrontHandler, frontContext: ChannelHandlerContext) {
        self.front = front
        self.frontContext = frontContext
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func send(_ part: HTTPClientRequestPart) { context?.write(wrapOutboundOut(part), promise: nil) }

    func flush() { context?.flush() }

    func close() { context?.close(promise: nil) }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            frontContext.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        case .body(let body):
            frontContext.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(body))), promise: nil)
        case .end:
            frontContext.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
            front.responseEnded(context: frontContext)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        frontContext.close(promise: nil)
        context.fireChannelInactive()
    }
}

func runNIOProxy(port: Int, upstreamPort: Int) async throws {
    let upstream = try SocketAddress(ipAddress: "127.0.0.1", port: upstreamPort)
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.backlog, value: 256)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                try channel.pipeline.syncOperations.addHandler(ProxyFrontHandler(upstream: upstream))
            }
        }
        .bind(host: "127.0.0.1", port: port).get()
    try await channel.closeFuture.get()
}
