import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import WebAppLaunchMiddleware

extension GateProxy {
    /// Forwards a GET without a body on the connection's event loop, over an idle upstream
    /// connection (``ProxyFastPathRoute``): no task, and no thread hop when the connection is
    /// on the same loop, as the pool prefers. It is
    /// ``forward(_:session:logger:)``'s exchange for such a request, from the same pieces: the
    /// head (``upstreamHead(_:target:session:hasBody:announcedLength:)``), the response's plan
    /// (``plan(_:method:logger:)``) and the failure's status and log line (``failed(_:method:logger:)``).
    ///
    /// A kept-alive connection the upstream closed before a byte of the response is the one
    /// failure the task-based proxy sends again: here the request is passed on to it
    /// (``RelayedAnswer/passOn``), so it is sent again there, exactly as before.
    /// - Parameters:
    ///   - request: The client's request head (a GET without a body).
    ///   - target: Its target, found forwardable.
    ///   - session: Its verified session.
    ///   - connection: The idle connection leased for it (on the request's event loop, when
    ///     one was idle there).
    ///   - lease: The session's upstream slot, held until the response is written.
    ///   - logger: Where failures are logged (no personal data).
    /// - Returns: The answer; it never fails.
    func relay(
        _ request: HTTPRequest,
        target: String,
        session: LaunchSession,
        on connection: UpstreamConnection,
        lease: SessionUpstreamSlots.Lease,
        logger: Logger
    ) -> EventLoopFuture<RelayedAnswer> {
        let head = upstreamHead(request, target: target, session: session, hasBody: false, announcedLength: request.headerFields[.contentLength].flatMap { Int($0) })
        let pool = client.pool
        let method = request.method
        let loop = connection.channel.eventLoop
        return connection.start(head, sendsBody: false, responseDeadline: .now() + TimeAmount(responseTimeout)).flatMapError { error in
            connection.close(error)
            pool.release(connection, reusable: false)
            return loop.makeFailedFuture(error)
        }.flatMap { responseHead -> EventLoopFuture<RelayedAnswer> in
            let response = UpstreamResponse(head: responseHead, connection: connection, pool: pool)
            switch plan(responseHead, method: method, logger: logger) {
            case .tooLarge:
                response.release()
                return loop.makeSucceededFuture(.own(GateErrorResponse.answer(.badGateway)))
            case .whole(let planned, let length):
                return response.collectOnLoop(upTo: length).map { whole -> RelayedAnswer in
                    withExtendedLifetime(lease) {}
                    return .response(planned, .whole(whole))
                }.flatMapErrorThrowing { error in
                    .own(GateErrorResponse.answer(Self.failed(error, method: method, logger: logger)))
                }
            case .stream(let planned, _):
                let body = UpstreamRelayedBody(response: response, limit: maximumResponseBodyBytes, writeTimeout: TimeAmount(clientWriteTimeout), lease: lease)
                return loop.makeSucceededFuture(.response(planned, .stream(body)))
            }
        }.flatMapErrorThrowing { error in
            // Only the head's failures get here: the plan's answers never fail.
            if UpstreamClient.isSentAgain(head, hasBody: false, after: error, onReusedConnection: true) { return .passOn }
            return .own(GateErrorResponse.answer(Self.failed(error, method: method, logger: logger)))
        }
    }
}
