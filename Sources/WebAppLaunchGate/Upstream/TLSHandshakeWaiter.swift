import NIOCore
import NIOTLS
import Synchronization

/// Holds a new `https` upstream connection back until its TLS handshake is done: the
/// connection is handed to a request only once the upstream is authenticated
/// (``UpstreamTrust``), and a handshake that fails is the connection attempt's failure,
/// reported with NIOSSL's error (logged as `tlsHandshakeFailed`), never a request's
/// `connectionClosed` depending on which came first.
///
/// It stays in the pipeline after the handshake, passing everything on (one hop per read
/// beside NIOSSL's work). Its outcome is found through a ``Registry`` rather than the
/// pipeline: a handshake that fails at once may have torn the pipeline down before the
/// connection attempt looks.
final class TLSHandshakeWaiter: ChannelInboundHandler {
    /// The handshakes of one connection attempt's channels (a host name may be tried on
    /// several addresses), by channel: the attempt takes the one of the channel it got.
    final class Registry: Sendable {
        private let handshakes = Mutex<[ObjectIdentifier: EventLoopFuture<Void>]>([:])

        /// Adds a waiter for `channel` to its pipeline and records its handshake.
        func addWaiter(to channel: any Channel, timeout: TimeAmount) throws {
            let waiter = TLSHandshakeWaiter(eventLoop: channel.eventLoop, timeout: timeout)
            handshakes.withLock { $0[ObjectIdentifier(channel)] = waiter.handshake }
            try channel.pipeline.syncOperations.addHandler(waiter)
        }

        /// The handshake of the channel the attempt got (`nil` when it has no TLS).
        func handshake(of channel: any Channel) -> EventLoopFuture<Void>? {
            handshakes.withLock { $0[ObjectIdentifier(channel)] }
        }
    }

    typealias InboundIn = NIOAny

    private let done: EventLoopPromise<Void>
    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    /// The handshake's outcome: success, NIOSSL's error,
    /// ``UpstreamClientError/connectionClosed`` or ``UpstreamClientError/connectTimeout``.
    var handshake: EventLoopFuture<Void> { done.futureResult }

    /// - Parameters:
    ///   - eventLoop: The connection's event loop.
    ///   - timeout: How long the handshake may take (the connect timeout): a server that
    ///     accepts the connection and never answers the handshake holds no request.
    init(eventLoop: any EventLoop, timeout: TimeAmount) {
        done = eventLoop.makePromise()
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            self.done.fail(UpstreamClientError.connectTimeout)
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        done.fail(UpstreamClientError.connectionClosed)  // no effect once completed
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            deadline?.cancel()
            done.succeed()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        done.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        done.fail(UpstreamClientError.connectionClosed)
        context.fireChannelInactive()
    }
}
