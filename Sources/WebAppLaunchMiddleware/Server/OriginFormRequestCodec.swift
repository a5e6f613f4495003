import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Translates HTTP/1 messages to and from Swift HTTP Types on the server side, as
/// swift-nio-extras' `HTTP1ToHTTPServerCodec` does, without parsing an origin-form request
/// target with Foundation.
///
/// The nio-extras codec runs every request target through `URLComponents` to take the path of
/// an absolute-form target (`GET http://host/path`). For an origin-form target (`/path?query`,
/// every request a browser sends to a server) that parse can only give the target back, and it
/// was about 4 % of the CPU of a launch (a launch URL's query is about a kilobyte). Here an
/// origin-form target is the path as it is; any other form goes through nio-extras' own
/// conversion, so both give the same ``HTTPRequest`` for every head (a test compares them).
///
/// In front of a ``LaunchFastPathHandler`` it also hands that handler the long values of a
/// head as they are (``UncheckedHeadValues``): an origin-form target, and the session's
/// `Set-Cookie` of an answer written on the event loop.
///
/// It sees every request and every answer of its connection, whichever path answers, so it
/// also keeps the connection's persistence (``ConnectionPersistence``): the answer to a
/// request that does not keep the connection open says `Connection: close`, and the
/// connection closes once that answer is written.
final class OriginFormRequestCodec: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let secure: Bool
    /// Shared with the connection's ``LaunchFastPathHandler``; `nil` without one.
    private let unchecked: UncheckedHeadValues?
    private var persistence = ConnectionPersistence()

    /// - Parameters:
    ///   - secure: Whether the connection is TLS (the request's scheme).
    ///   - unchecked: The values shared with the connection's ``LaunchFastPathHandler``, or
    ///     `nil` when there is none (every request then carries its `path`).
    init(secure: Bool, unchecked: UncheckedHeadValues? = nil) {
        self.secure = secure
        self.unchecked = unchecked
    }

    /// The request a head stands for: nio-extras' conversion, with an origin-form target
    /// taken as it is.
    /// - Parameters:
    ///   - head: The HTTP/1 request head.
    ///   - secure: Whether the connection is TLS.
    /// - Throws: nio-extras' `HTTP1TypeConversionError` for a method it cannot carry.
    static func request(from head: HTTPRequestHead, secure: Bool) throws -> HTTPRequest {
        guard isOriginForm(head) else { return try HTTPRequest(head, secure: secure, splitCookie: false) }
        return try originFormRequest(head, secure: secure, path: head.uri)
    }

    /// ``request(from:secure:)`` without the `path` of an origin-form target, which waits in
    /// `unchecked` instead; any other form is converted whole.
    private func requestLeavingTarget(from head: HTTPRequestHead, in unchecked: UncheckedHeadValues) throws -> HTTPRequest {
        guard Self.isOriginForm(head) else { return try Self.request(from: head, secure: secure) }
        let request = try Self.originFormRequest(head, secure: secure, path: nil)
        unchecked.leave(requestTarget: head.uri)  // only for a head that is passed on
        return request
    }

    /// Whether the target starts with `/`: it has no scheme, and `URLComponents` would
    /// return it unchanged.
    private static func isOriginForm(_ head: HTTPRequestHead) -> Bool {
        head.uri.utf8.first == UInt8(ascii: "/")
    }

    /// An origin-form head as a request whose `path` is `path` (its target, or `nil` when
    /// the target is handed over apart).
    private static func originFormRequest(_ head: HTTPRequestHead, secure: Bool, path: String?) throws -> HTTPRequest {
        HTTPRequest(
            method: try HTTPRequest.Method(head.method),
            scheme: secure ? "https" : "http",
            authority: head.headers.first(name: "Host"),
            path: path,
            headerFields: HTTPFields(head.headers, splitCookie: false)
        )
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            persistence.requestHead(keepsAlive: head.isKeepAlive)
            do {
                let request = try unchecked.map { try requestLeavingTarget(from: head, in: $0) } ?? Self.request(from: head, secure: secure)
                context.fireChannelRead(wrapInboundOut(.head(request)))
            } catch {
                context.fireErrorCaught(error)
            }
        case .body(let body):
            context.fireChannelRead(wrapInboundOut(.body(body)))
        case .end(let trailers):
            context.fireChannelRead(wrapInboundOut(.end(trailers.map { HTTPFields($0, splitCookie: false) })))
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response):
            var head: HTTPResponseHead
            if let setCookie = unchecked?.takeSetCookie() {
                // nio-extras' conversion, with the session's `Set-Cookie` among the fields as it is.
                var fields = response.headerFields.map { ($0.name.rawName, $0.value) }
                fields.insert(("Set-Cookie", setCookie.value), at: min(setCookie.index, fields.count))
                head = HTTPResponseHead(
                    version: .http1_1,
                    status: HTTPResponseStatus(statusCode: response.status.code, reasonPhrase: response.status.reasonPhrase),
                    headers: HTTPHeaders(fields)
                )
            } else {
                head = HTTPResponseHead(response)
            }
            if response.status.kind != .informational, persistence.answerHead() {
                head.headers.replaceOrAdd(name: "Connection", value: "close")
            }
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body(let body):
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: promise)
        case .end(let trailers):
            let end = wrapOutboundOut(.end(trailers.map(HTTPHeaders.init)))
            guard persistence.answerEnd() else {
                context.write(end, promise: promise)
                return
            }
            // The connection's last answer: closed once its bytes are written, none cut off.
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            written.futureResult.cascade(to: promise)
            context.writeAndFlush(end, promise: written)
        }
    }
}
