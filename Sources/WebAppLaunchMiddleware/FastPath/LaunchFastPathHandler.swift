import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes

/// The runner of ``LaunchFastPath`` in one connection's pipeline, between Hummingbird's
/// connection state handler and its async channel: it answers the requests a route answers
/// (launches, the gate's `/auth`) when ``LaunchFastPathState`` lets it, and hands every other
/// part on untouched.
///
/// Sitting after the connection state handler, its requests and answers count for the idle
/// timeout, `Connection: close` and graceful shutdown as Hummingbird's do.
final class LaunchFastPathHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let fastPath: LaunchFastPath
    private var state = LaunchFastPathState()
    /// The answer of the request held from its head to its end, decided at its head.
    private var held: LaunchAnswer?
    private var needsFlush = false

    init(_ fastPath: LaunchFastPath) {
        self.fastPath = fastPath
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let action: LaunchFastPathState.Action
        switch unwrapInboundIn(data) {
        case .head(let request):
            // Decided at the head: a GET without a body ends right after it.
            let answer = state.mayAnswer ? fastPath.answer(for: request) : nil
            action = state.head(answerable: answer != nil)
            if action == .hold { held = answer }
        case .body:
            action = state.body()
        case .end:
            action = state.end()
        }
        switch action {
        case .pass: context.fireChannelRead(data)
        case .hold, .drop: break
        case .answer: answerHeld(context: context)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { state.passedResponseEnded() }
        context.write(data, promise: promise)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    private func answerHeld(context: ChannelHandlerContext) {
        guard let answer = held else { return }
        held = nil
        // In the order Hummingbird writes them: the answer's, its length, the listener's, `Date`.
        var headerFields = answer.headerFields
        headerFields[.contentLength] = String(answer.body.readableBytes)
        for field in fastPath.responseFields { headerFields[fields: field.name] = [field] }
        headerFields[.date] = HTTPDateCache.shared.value
        context.write(wrapOutboundOut(.head(HTTPResponse(status: answer.status, headerFields: headerFields))), promise: nil)
        if answer.body.readableBytes > 0 { context.write(wrapOutboundOut(.body(answer.body)), promise: nil) }
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        needsFlush = true
    }
}
