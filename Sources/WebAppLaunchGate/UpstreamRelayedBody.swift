import NIOCore
import Synchronization
import WebAppLaunchMiddleware

/// A streamed upstream response body as the event-loop proxy writes it
/// (``RelayedBodySource``): read one pull at a time on the connection's event loop, cut off
/// past ``GateConfiguration/maximumResponseBodyBytes``, holding the session's upstream slot
/// until it is done with (written to its end, abandoned, or dropped).
final class UpstreamRelayedBody: RelayedBodySource {
    let writeTimeout: TimeAmount
    private let response: UpstreamResponse
    private let limit: Int
    private let lease: SessionUpstreamSlots.Lease
    private let total = Atomic<Int>(0)

    /// - Parameters:
    ///   - response: The upstream's response, its head passed on.
    ///   - limit: The most body bytes passed on.
    ///   - writeTimeout: How long the client may take to accept one pull's bytes.
    ///   - lease: The session's slot, given back when this is released.
    init(response: UpstreamResponse, limit: Int, writeTimeout: TimeAmount, lease: SessionUpstreamSlots.Lease) {
        self.response = response
        self.limit = limit
        self.writeTimeout = writeTimeout
        self.lease = lease
    }

    func next() -> EventLoopFuture<[ByteBuffer]> {
        response.nextChunksOnLoop().flatMapThrowing { [self] chunks in
            let read = chunks.reduce(0) { $0 + $1.readableBytes }
            // Past the limit the response is cut off: its head is already sent.
            guard total.add(read, ordering: .relaxed).newValue <= limit else { throw ResponseBodyTooLarge() }
            return chunks
        }
    }

    func abandon() { response.release() }
}
