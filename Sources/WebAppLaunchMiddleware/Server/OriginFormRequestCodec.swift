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
final class OriginFormRequestCodec: ChannelDuplexHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let secure: Bool

    /// - Parameter secure: Whether the connection is TLS (the request's scheme).
    init(secure: Bool) {
        self.secure = secure
    }

    /// The request a head stands for: nio-extras' conversion, with an origin-form target
    /// taken as it is.
    /// - Parameters:
    ///   - head: The HTTP/1 request head.
    ///   - secure: Whether the connection is TLS.
    /// - Throws: nio-extras' `HTTP1TypeConversionError` for a method it cannot carry.
    static func request(from head: HTTPRequestHead, secure: Bool) throws -> HTTPRequest {
        // A target starting with `/` has no scheme: `URLComponents` would return it unchanged.
        guard head.uri.utf8.first == UInt8(ascii: "/") else {
            return try HTTPRequest(head, secure: secure, splitCookie: false)
        }
        return HTTPRequest(
            method: try HTTPRequest.Method(head.method),
            scheme: secure ? "https" : "http",
            authority: head.headers.first(name: "Host"),
            path: head.uri,
            headerFields: HTTPFields(head.headers, splitCookie: false)
        )
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            do {
                context.fireChannelRead(wrapInboundOut(.head(try Self.request(from: head, secure: secure))))
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
            context.write(wrapOutboundOut(.head(HTTPResponseHead(response))), promise: promise)
        case .body(let body):
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: promise)
        case .end(let trailers):
            context.write(wrapOutboundOut(.end(trailers.map(HTTPHeaders.init))), promise: promise)
        }
    }
}
