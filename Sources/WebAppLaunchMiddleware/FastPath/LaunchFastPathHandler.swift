import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes

/// The runner of ``LaunchFastPath`` in one connection's pipeline, between Hummingbird's
/// connection state handler and its async channel: it answers the requests a route answers
/// (launches, the gate's `/auth`, the gate's proxied requests) when ``LaunchFastPathState``
/// lets it, and hands every other part on untouched.
///
/// Sitting after the connection state handler, its requests and answers count for the idle
/// timeout, `Connection: close` and graceful shutdown as Hummingbird's do.
///
/// A relayed answer (``FastPathAnswer/relayed(_:)``) is written when it comes; a streamed body
/// is read one piece at a time, each written and taken by the socket before the next is asked
/// for. Meanwhile the connection's later parts wait here, and once one waits the socket is not
/// read: the client's pipelined requests are answered in their order, and what waits is at
/// most what one read of the socket brought.
final class LaunchFastPathHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let fastPath: LaunchFastPath
    /// Shared with the connection's ``OriginFormRequestCodec``, or `nil` when every request
    /// arrives with its `path`.
    private let unchecked: UncheckedHeadValues?
    private var state = LaunchFastPathState()
    /// The answer of the request held from its head to its end, decided at its head.
    private var held: FastPathAnswer?
    /// The held request's head, while its answer may still be passed on to Hummingbird.
    private var heldHead: HTTPRequest?
    /// The held request's target, its `path` once it is passed on.
    private var heldTarget: String?
    /// Parts that arrived while a relayed answer was written, in their order.
    private var waiting = CircularBuffer<NIOAny>()
    /// A streamed relayed body being written; let go of when the connection closes.
    private var source: (any RelayedBodySource)?
    /// A read of the socket asked for while parts waited, issued once the answer is written.
    private var readPending = false
    private var isActive = true
    private var needsFlush = false

    /// Whether the socket is left unread: a relayed answer is being written and a part of a
    /// later request already waits for it.
    private var withholdsReads: Bool { state.isRelaying && !waiting.isEmpty }

    init(_ fastPath: LaunchFastPath, unchecked: UncheckedHeadValues?) {
        self.fastPath = fastPath
        self.unchecked = unchecked
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        process(data, context: context)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { state.passedResponseEnded() }
        context.write(data, promise: promise)
    }

    func read(context: ChannelHandlerContext) {
        // While an answer is relayed, the socket is read until a part of the client's next
        // request waits here; then the rest stays in the socket. Withholding every read for
        // the relay would take the socket out of the event loop's interest set and put it
        // back, two system calls per relayed request, and see a client's close only later.
        if withholdsReads {
            readPending = true
            return
        }
        context.read()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        isActive = false
        letGoOfSource()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        isActive = false
        letGoOfSource()
    }

    // MARK: Requests

    private func process(_ data: NIOAny, context: ChannelHandlerContext) {
        var data = data
        let action: LaunchFastPathState.Action
        switch unwrapInboundIn(data) {
        case .head(var request):
            // The codec left an origin-form target apart (``UncheckedHeadValues``): taken now,
            // and put back as the `path` before the request goes anywhere but a route.
            let target = request.path ?? unchecked?.takeRequestTarget()
            // Decided at the head: a GET without a body ends right after it.
            let answer = state.mayAnswer ? target.flatMap { fastPath.answer(for: request, target: $0, on: context.eventLoop) } : nil
            action = state.head(answerable: answer != nil)
            if action == .hold {
                held = answer
                heldHead = request
                heldTarget = target
            } else if request.path == nil, let target {
                request.path = target
                data = wrapInboundOut(.head(request))
            }
        case .body:
            action = state.body()
        case .end:
            action = state.end()
        }
        switch action {
        case .pass: context.fireChannelRead(data)
        case .hold, .drop: break
        case .wait: waiting.append(data)
        case .answer: answerHeld(context: context)
        }
    }

    private func answerHeld(context: ChannelHandlerContext) {
        guard let answer = held else { return }
        held = nil
        switch answer {
        case .now(let own):
            heldHead = nil
            heldTarget = nil
            write(own, context: context)
        case .relayed(let future):
            state.relayStarted()
            future.hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
                self.relayed(result, context: context)
            }
        }
    }

    /// Writes an answer of ours: in the order Hummingbird writes them, the answer's fields,
    /// its length, the listener's, `Date`.
    private func write(_ answer: LaunchAnswer, context: ChannelHandlerContext) {
        let fields = fastPath.headerFields(of: answer)
        if let unchecked {
            // The session's `Set-Cookie` goes to the codec as it is, at the answer's place for it.
            let head = HTTPResponse(status: answer.status, headerFields: fields)
            unchecked.withSetCookie(answer.sessionCookie, at: answer.sessionCookieIndex) {
                context.write(wrapOutboundOut(.head(head)), promise: nil)
            }
        } else {
            let head = HTTPResponse(status: answer.status, headerFields: answer.placingSessionCookie(in: fields))
            context.write(wrapOutboundOut(.head(head)), promise: nil)
        }
        if answer.body.readableBytes > 0 { context.write(wrapOutboundOut(.body(answer.body)), promise: nil) }
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        needsFlush = true
    }

    // MARK: Relayed answers

    private func relayed(_ result: Result<RelayedAnswer, any Error>, context: ChannelHandlerContext) {
        let answer: RelayedAnswer
        switch result {
        case .success(let relayed): answer = relayed
        case .failure(let error):
            fastPath.logger.error("request.failed", metadata: ["error_type": "\(String(describing: type(of: error)))"])
            answer = .own(LaunchFastPath.internalError)
        }
        guard isActive else {
            if case .response(_, .stream(let source)) = answer { source.abandon() }
            return
        }
        switch answer {
        case .own(let own):
            write(own, context: context)
            relayEnded(context: context)
        case .response(var head, .whole(let body)):
            // As Hummingbird sends any response: its length when it has none, `Date` set.
            if !head.headerFields.contains(.contentLength) { head.headerFields[.contentLength] = String(body.readableBytes) }
            head.headerFields[.date] = HTTPDateCache.shared.value
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if body.readableBytes > 0 { context.write(wrapOutboundOut(.body(body)), promise: nil) }
            context.write(wrapOutboundOut(.end(nil)), promise: nil)
            needsFlush = true
            relayEnded(context: context)
        case .response(var head, .stream(let source)):
            head.headerFields[.date] = HTTPDateCache.shared.value
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            self.source = source
            pump(source, context: context)
        case .passOn:
            guard var request = heldHead, let target = heldTarget else {
                // Nothing to pass on (never: the head is kept until the relay ends): fail closed.
                context.close(promise: nil)
                return
            }
            heldHead = nil
            heldTarget = nil
            request.path = target
            state.relayPassedOn()
            context.fireChannelRead(wrapInboundOut(.head(request)))
            context.fireChannelRead(wrapInboundOut(.end(nil)))
            context.fireChannelReadComplete()
            resume(context: context)
        }
    }

    /// Writes the source's next bytes once the socket took the last ones, within the source's
    /// write timeout; the end ends the relay, a failure or a timeout closes the connection.
    private func pump(_ source: any RelayedBodySource, context: ChannelHandlerContext) {
        context.flush()
        source.next().hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
            guard self.isActive, self.source === source else { return }
            switch result {
            case .success(let chunks) where chunks.isEmpty:
                self.source = nil
                context.write(self.wrapOutboundOut(.end(nil)), promise: nil)
                self.needsFlush = true
                self.relayEnded(context: context)
            case .success(let chunks):
                for chunk in chunks.dropLast() { context.write(self.wrapOutboundOut(.body(chunk)), promise: nil) }
                let written = context.eventLoop.makePromise(of: Void.self)
                context.writeAndFlush(self.wrapOutboundOut(.body(chunks[chunks.count - 1])), promise: written)
                let deadline = context.eventLoop.assumeIsolated().scheduleTask(in: source.writeTimeout) {
                    // The client stopped reading: the response is cut off, the source let go.
                    self.letGoOfSource()
                    context.close(promise: nil)
                }
                written.futureResult.assumeIsolated().whenComplete { written in
                    deadline.cancel()
                    guard self.isActive, self.source === source else { return }
                    switch written {
                    case .success: self.pump(source, context: context)
                    case .failure:
                        self.letGoOfSource()
                        context.close(promise: nil)
                    }
                }
            case .failure:
                // Its head is sent: past the body's limit, or the source failed, it is cut off.
                self.letGoOfSource()
                context.close(promise: nil)
            }
        }
    }

    private func relayEnded(context: ChannelHandlerContext) {
        heldHead = nil
        heldTarget = nil
        state.relayEnded()
        resume(context: context)
    }

    /// The parts that waited arrive again, in their order, until one starts another relay;
    /// then the socket is read again if it was asked for meanwhile.
    private func resume(context: ChannelHandlerContext) {
        var passed = false
        while !state.isRelaying, let data = waiting.popFirst() {
            passed = true
            process(data, context: context)
        }
        // The async channel delivers what it was given at a read's completion.
        if passed { context.fireChannelReadComplete() }
        flushIfNeeded(context: context)
        if readPending, !withholdsReads {
            readPending = false
            context.read()
        }
    }

    private func letGoOfSource() {
        guard let source else { return }
        self.source = nil
        source.abandon()
    }

    private func flushIfNeeded(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
    }
}
