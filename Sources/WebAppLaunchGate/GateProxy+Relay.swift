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
        // One promise for the answer, completed from the callbacks of the two steps (the
        // response head, then its body): no future per step of the exchange.
        let answer = connection.channel.eventLoop.makePromise(of: RelayedAnswer.self)
        connection.start(head, sendsBody: false, responseDeadline: .now() + TimeAmount(responseTimeout)) { [self] started in
            let responseHead: HTTPResponseHead
            switch started {
            case .success(let received):
                responseHead = received
            case .failure(let error):
                connection.close(error)
                pool.release(connection, reusable: false)
                // A reused connection the upstream closed before answering: Hummingbird's path sends it again.
                if UpstreamClient.isSentAgain(head, hasBody: false, after: error, onReusedConnection: true) {
                    sentAgain(after: error, method: method, logger: logger)
                    answer.succeed(.passOn)
                } else {
                    answer.succeed(.own(GateErrorResponse.answer(failed(error, method: method, logger: logger))))
                }
                return
            }
            let response = UpstreamResponse(head: responseHead, connection: connection, pool: pool)
            switch plan(responseHead, method: method, logger: logger) {
            case .tooLarge:
                response.release()
                answer.succeed(.own(GateErrorResponse.answer(.badGateway)))
            case .whole(let planned, let length):
                response.collect(upTo: length) { [self] collected in
                    withExtendedLifetime(lease) {}
                    switch collected {
                    case .success(let whole): answer.succeed(.response(planned, .whole(whole)))
                    case .failure(let error): answer.succeed(.own(GateErrorResponse.answer(failed(error, method: method, logger: logger))))
                    }
                }
            case .stream(let planned, _):
                let body = UpstreamRelayedBody(response: response, limit: maximumResponseBodyBytes, writeTimeout: TimeAmount(clientWriteTimeout), lease: lease)
                answer.succeed(.response(planned, .stream(body)))
            }
        }
        return answer.futureResult
    }
}
