import NIOCore
import NIOHTTP1

/// One upstream connection's exchange, on its event loop: at most one request at a time, its
/// response head handed to a callback, its body pulled by the reader with backpressure
/// (the socket is not read while a full buffer waits for the reader), its timeouts as
/// deadlines checked by one timer on the loop.
///
/// Whether the connection may serve another request is decided here, from what was seen on
/// the wire: the request was written to its end, the response ended with framing of its own
/// (`Content-Length`, chunked, or no body by its status or the request's method), both sides
/// keep the connection alive, nothing arrived that was not asked for, and no error happened.
/// Anything else closes it.
final class UpstreamConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    /// What one pull of the response body gets.
    struct BodyRead: Sendable {
        /// The bytes buffered since the last pull (empty only at the end).
        var chunks: [ByteBuffer]
        /// Whether the body ended with these bytes: the exchange is over.
        var end: Bool
        /// At the end: whether the connection may serve another request (then it is idle
        /// again); when not, it is being closed.
        var reusable: Bool
    }

    /// Called on the event loop, exactly once, with the response head or why none came.
    /// A callback, not a promise: the event loop's proxy waits for the head and then for the
    /// body without a future for either (a future's allocation, callback list and generic
    /// metadata lookups were about 5 % of the gate's CPU with four per request).
    typealias HeadCallback = @Sendable (Result<HTTPResponseHead, any Error>) -> Void
    /// Called on the event loop, exactly once, with one pull's bytes or why none came.
    typealias PullCallback = @Sendable (Result<BodyRead, any Error>) -> Void

    /// Bytes buffered for the reader before the socket stops being read.
    static let bufferHighWatermark = 64 * 1024

    private enum Phase {
        /// No request: anything arriving now was not asked for.
        case idle
        case awaitingHead(HeadCallback)
        case body
        case ended
        case failed(any Error)
    }

    private let readTimeout: TimeAmount
    private var context: ChannelHandlerContext?
    private var phase = Phase.idle
    private var buffer = CircularBuffer<ByteBuffer>()
    private var bufferedBytes = 0
    private var pull: PullCallback?
    private var readWithheld = false
    private var requestEnded = false
    /// Something went wrong after the response ended (bytes nobody asked for): the response
    /// stays readable, the connection is closed and never reused.
    private var poisoned = false
    private var requestIsHead = false
    private var responseKeepsAlive = false
    /// When the response head must have come, while it is awaited.
    private var headDeadline: NIODeadline?
    /// When the upstream's silence ends the exchange, while it is being read.
    private var readDeadline: NIODeadline?
    /// One timer for both deadlines, kept across exchanges: a deadline that moves later (every
    /// chunk moves the read deadline) leaves it alone, and when it fires early it looks again
    /// and sleeps until the deadline now due. So an exchange costs a clock read per event, not
    /// a timer scheduled and cancelled per chunk (a tenth of the proxy's CPU when it did).
    private var timer: Scheduled<Void>?
    private var timerDeadline = NIODeadline.distantFuture

    /// - Parameter readTimeout: How long the upstream may stay silent while the gate waits
    ///   for its response (not while the reader is slow: then the socket is not being read).
    init(readTimeout: TimeAmount) {
        self.readTimeout = readTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        fail(UpstreamClientError.connectionClosed)
        self.context = nil
    }

    // MARK: The request's side (called on the event loop by ``UpstreamConnection``)

    /// Writes a request head (and its end, without a body); `onHead` gets the response head.
    func start(_ head: HTTPRequestHead, sendsBody: Bool, responseDeadline: NIODeadline, onHead: @escaping HeadCallback) {
        guard let context, case .idle = phase, context.channel.isActive else {
            onHead(.failure(UpstreamClientError.connectionClosed))
            return
        }
        phase = .awaitingHead(onHead)
        buffer.removeAll()
        bufferedBytes = 0
        poisoned = false
        requestEnded = false
        requestIsHead = head.method == .HEAD
        responseKeepsAlive = false
        headDeadline = responseDeadline
        scheduleTimer()
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if !sendsBody {
            requestEnded = true
            // The read clock starts once the request is sent: an upload in progress is the
            // client's pace, bounded by the response deadline, not the upstream's silence.
            armReadTimer()
            context.write(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.flush()
    }

    /// Gives `onRead` the response body bytes buffered so far, at once, or waits for some
    /// when there are none. The pull that gets the end also ends the exchange and says
    /// whether the connection may be reused, so it can go back to the pool without another
    /// trip to the event loop.
    func nextChunks(_ onRead: @escaping PullCallback) {
        // No context needed: a response that ended before its connection closed (framed by
        // the close, or `Connection: close`) stays readable after the handler is removed.
        if case .failed(let error) = phase { return onRead(.failure(error)) }
        guard pull == nil else { return onRead(.failure(UpstreamClientError.connectionClosed)) }
        if let read = takeRead() { return onRead(.success(read)) }
        guard context != nil else { return onRead(.failure(UpstreamClientError.connectionClosed)) }
        pull = onRead
    }

    /// Closes the connection, failing whatever waits on it.
    func close(_ error: any Error) { fail(error) }

    // MARK: Channel events

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            requestEnded = true
            if case .awaitingHead = phase { armReadTimer() }
        }
        context.write(data, promise: promise)
    }

    func read(context: ChannelHandlerContext) {
        if bufferedBytes >= Self.bufferHighWatermark {
            // The reader is behind: stop reading the socket (TCP pushes back on the upstream),
            // and stop the read clock, which measures the upstream's silence, not the reader's.
            readWithheld = true
            readDeadline = nil
            return
        }
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch (phase, part) {
        case (.awaitingHead(let onHead), .head(let head)):
            headDeadline = nil
            guard head.status != .switchingProtocols else {
                fail(UpstreamClientError.invalidResponse)
                return
            }
            responseKeepsAlive = head.isKeepAlive && Self.isSelfFraming(head, requestIsHead: requestIsHead)
            phase = .body
            armReadTimer()
            onHead(.success(head))
        case (.body, .body(let chunk)):
            armReadTimer()
            bufferedBytes += chunk.readableBytes
            buffer.append(chunk)
            deliverPull()
        case (.body, .end):
            phase = .ended
            cancelTimers()
            deliverPull()
        case (.failed, _):
            break
        default:
            // A part nobody asked for (a response while idle, a second head): the stream of
            // responses no longer matches the requests. Never reuse, never pass on.
            fail(UpstreamClientError.invalidResponse)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The decoder has delivered the end of a response framed by the close before this.
        switch phase {
        case .idle, .ended, .failed: cancelTimers()
        case .awaitingHead, .body: fail(UpstreamClientError.connectionClosed)
        }
        context.fireChannelInactive()
    }

    // MARK: Internals

    /// Whether a response's end is known without the connection closing: no body by status
    /// or method, or `Content-Length`, or chunked transfer coding.
    static func isSelfFraming(_ head: HTTPResponseHead, requestIsHead: Bool) -> Bool {
        if requestIsHead || head.status == .noContent || head.status == .notModified || head.status.code < 200 { return true }
        if let encoding = head.headers["transfer-encoding"].last {
            return encoding.lowercased().hasSuffix("chunked")
        }
        return head.headers["content-length"].count == 1
    }

    /// What the reader gets now: the buffered bytes, with the end when the body has ended;
    /// `nil` when there is nothing yet.
    private func takeRead() -> BodyRead? {
        var ended = false
        if case .ended = phase { ended = true }
        guard !buffer.isEmpty || ended else { return nil }
        let chunks = Array(buffer)
        buffer.removeAll(keepingCapacity: true)
        bufferedBytes = 0
        if readWithheld, let context {
            // Read the socket again, at the end too: an idle connection must see the
            // upstream's close (and anything unasked-for), and the next response.
            readWithheld = false
            if !ended { armReadTimer() }
            context.read()
        }
        if ended {
            return BodyRead(chunks: chunks, end: true, reusable: finishExchange())
        }
        return BodyRead(chunks: chunks, end: false, reusable: false)
    }

    /// The response has ended and been read: whether the connection may serve another
    /// request (then it is idle again); when not, it is closed.
    private func finishExchange() -> Bool {
        cancelTimers()
        let reusable = requestEnded && responseKeepsAlive && !poisoned && context?.channel.isActive == true
        if reusable {
            phase = .idle
            return true
        }
        fail(UpstreamClientError.connectionClosed)
        return false
    }

    private func deliverPull() {
        guard let onRead = pull, let read = takeRead() else { return }
        pull = nil
        onRead(.success(read))
    }

    private func armReadTimer() {
        readDeadline = .now() + readTimeout
        scheduleTimer()
    }

    /// Nothing is awaited any more; the timer, if any, finds nothing due when it fires.
    private func cancelTimers() {
        headDeadline = nil
        readDeadline = nil
    }

    /// Makes sure the timer fires no later than the earliest deadline.
    private func scheduleTimer() {
        guard let context else { return }
        let earliest = min(headDeadline ?? .distantFuture, readDeadline ?? .distantFuture)
        guard earliest < .distantFuture else { return }
        if timer != nil, timerDeadline <= earliest { return }
        timer?.cancel()
        timerDeadline = earliest
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: earliest) { [self] in timerFired() }
    }

    private func timerFired() {
        timer = nil
        timerDeadline = .distantFuture
        let now = NIODeadline.now()
        if let headDeadline, headDeadline <= now {
            fail(UpstreamClientError.responseHeadTimeout)
        } else if let readDeadline, readDeadline <= now {
            fail(UpstreamClientError.readTimeout)
        } else {
            scheduleTimer()
        }
    }

    private func fail(_ error: any Error) {
        cancelTimers()
        // The connection is done: its timer goes with it.
        timer?.cancel()
        timer = nil
        if case .ended = phase {
            // The response is whole and stays readable; the connection is done.
            poisoned = true
            if let context, context.channel.isActive { context.close(promise: nil) }
            return
        }
        let previous = phase
        if case .failed = previous {} else { phase = .failed(error) }
        if case .awaitingHead(let onHead) = previous { onHead(.failure(error)) }
        if let onRead = pull {
            self.pull = nil
            onRead(.failure(error))
        }
        buffer.removeAll()
        bufferedBytes = 0
        if let context, context.channel.isActive { context.close(promise: nil) }
    }
}
