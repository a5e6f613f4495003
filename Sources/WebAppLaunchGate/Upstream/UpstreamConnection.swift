import NIOCore
import NIOHTTP1
import NIOSSL

/// One keep-alive connection to the upstream, as its leaseholder uses it from any task: each
/// call runs ``UpstreamConnectionHandler`` on the channel's event loop (directly when already
/// there). Held by one request at a time (``UpstreamPool`` leases it).
final class UpstreamConnection: Sendable {
    let id: UpstreamPoolStateMachine.ConnectionID
    let channel: any Channel
    private let handler: NIOLoopBound<UpstreamConnectionHandler>
    /// The TLS context the upstream was authenticated under (`nil` for `http`): the pool
    /// leases the connection again only while that context is the one in use.
    let tlsContext: NIOSSLContext?

    init(
        id: UpstreamPoolStateMachine.ConnectionID,
        channel: any Channel,
        handler: NIOLoopBound<UpstreamConnectionHandler>,
        tlsContext: NIOSSLContext?
    ) {
        self.id = id
        self.channel = channel
        self.handler = handler
        self.tlsContext = tlsContext
    }

    /// Sends a request head (and its end when there is no body); `onHead` gets the response
    /// head on the connection's event loop (``UpstreamConnectionHandler/start(_:sendsBody:responseDeadline:onHead:)``).
    func start(
        _ head: HTTPRequestHead,
        sendsBody: Bool,
        responseDeadline: NIODeadline,
        onHead: @escaping UpstreamConnectionHandler.HeadCallback
    ) {
        onLoop { $0.start(head, sendsBody: sendsBody, responseDeadline: responseDeadline, onHead: onHead) }
    }

    /// ``start(_:sendsBody:responseDeadline:onHead:)`` for a task, which waits on a future.
    func start(_ head: HTTPRequestHead, sendsBody: Bool, responseDeadline: NIODeadline) -> EventLoopFuture<HTTPResponseHead> {
        let promise = channel.eventLoop.makePromise(of: HTTPResponseHead.self)
        start(head, sendsBody: sendsBody, responseDeadline: responseDeadline) { promise.completeWith($0) }
        return promise.futureResult
    }

    /// Writes one chunk of the request body; returns once the socket took it (backpressure).
    func write(_ chunk: ByteBuffer) async throws {
        try await channel.writeAndFlush(HTTPClientRequestPart.body(.byteBuffer(chunk))).get()
    }

    /// Ends the request body.
    func endRequest() async throws {
        try await channel.writeAndFlush(HTTPClientRequestPart.end(nil)).get()
    }

    /// Gives `onRead` the next response body bytes on the connection's event loop; at the
    /// end, also whether the connection may be reused (it is idle again, or being closed).
    func nextChunks(_ onRead: @escaping UpstreamConnectionHandler.PullCallback) {
        onLoop { $0.nextChunks(onRead) }
    }

    /// Closes the connection, failing whatever waits on it.
    func close(_ error: any Error) {
        if channel.eventLoop.inEventLoop {
            handler.value.close(error)
        } else {
            let handler = self.handler
            channel.eventLoop.execute { handler.value.close(error) }
        }
    }

    /// Runs `body` with the handler on the connection's event loop: at once when already there.
    private func onLoop(_ body: @escaping @Sendable (UpstreamConnectionHandler) -> Void) {
        if channel.eventLoop.inEventLoop { return body(handler.value) }
        let handler = self.handler
        channel.eventLoop.execute { body(handler.value) }
    }
}
