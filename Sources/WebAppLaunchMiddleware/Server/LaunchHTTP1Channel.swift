import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Hummingbird's HTTP/1.1 child channel, with ``OriginFormRequestCodec`` in place of
/// swift-nio-extras' codec: the same pipeline (decoder limits, no pipelining assistance,
/// additional handlers, idle timeout, connection state) and the same request loop
/// (`handleHTTP`), without a Foundation parse of every request target.
///
/// Every listener of ours (`serve` and its metrics listener, the gate, the launcher) is
/// built with ``HTTPServerBuilder/webAppLaunchHTTP1(idleTimeout:)``.
public struct LaunchHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    /// The channel each connection's requests and responses pass through.
    public typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    /// Called with each request.
    public let responder: HTTPChannelHandler.Responder
    /// Hummingbird's HTTP/1 options, read as `HTTP1Channel` reads them.
    public let configuration: HTTP1Channel.Configuration
    /// Launches answered on the event loop (``LaunchFastPath``), or `nil` for none.
    public let launchFastPath: LaunchFastPath?

    /// Creates the channel.
    /// - Parameters:
    ///   - responder: Called with each request.
    ///   - configuration: Hummingbird's HTTP/1 options; give it an idle timeout.
    ///   - launchFastPath: Launches answered on the event loop, or `nil` for none.
    public init(
        responder: @escaping HTTPChannelHandler.Responder,
        configuration: HTTP1Channel.Configuration,
        launchFastPath: LaunchFastPath? = nil
    ) {
        self.responder = responder
        self.configuration = configuration
        self.launchFastPath = launchFastPath
    }

    /// Builds a connection's pipeline.
    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = configuration.httpDecoder.maxHeaderFieldSize
            limits.maxHeaderListSize = configuration.httpDecoder.maxHeaderListSize
            limits.maxHeaderFieldCount = configuration.httpDecoder.maxHeaderFieldCount
            let pipeline = channel.pipeline.syncOperations
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false,  // requests are taken one at a time by the async channel
                withErrorHandling: false,  // Hummingbird answers parse errors (handleHTTP)
                withOutboundHeaderValidation: false,  // HTTP Types validated every field when it was made
                withEncoderConfiguration: .init(),
                withDecoderLimitConfiguration: limits
            )
            // With a fast path, the two hand each other a head's long values as they are, when
            // nothing but the state handler (which reads no path or field) stands between them.
            let additional = configuration.additionalChannelHandlers()
            let unchecked = launchFastPath != nil && additional.isEmpty ? UncheckedHeadValues() : nil
            try pipeline.addHandler(OriginFormRequestCodec(secure: false, unchecked: unchecked))
            try pipeline.addHandlers(additional)
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: configuration.idleTimeout.map { .init($0) }, logger: logger))
            if let launchFastPath {  // after the state handler: its launches count for idle and shutdown
                try pipeline.addHandler(LaunchFastPathHandler(launchFastPath, unchecked: unchecked))
            }
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    /// Serves a connection's requests one after another.
    public func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 on ``LaunchHTTP1Channel``: the listener every entry point of ours uses.
    ///
    /// The idle timeout has no default: a listener without one keeps every silent
    /// connection open for ever, and a client could hold all of them (the launcher once
    /// listened that way while `serve` and the gate closed theirs).
    /// - Parameters:
    ///   - idleTimeout: How long a connection may stay silent (no request, or a request's
    ///     bytes stopped coming) before it is closed.
    ///   - launchFastPath: Launches answered on the event loop (``LaunchFastPath``), or
    ///     `nil` (the default) to send every request through Hummingbird.
    /// - Returns: The builder to pass as an `Application`'s `server`.
    public static func webAppLaunchHTTP1(idleTimeout: Duration, launchFastPath: LaunchFastPath? = nil) -> HTTPServerBuilder {
        let configuration = HTTP1Channel.Configuration(idleTimeout: TimeAmount(idleTimeout))
        return HTTPServerBuilder { responder in
            LaunchHTTP1Channel(responder: responder, configuration: configuration, launchFastPath: launchFastPath)
        }
    }
}
