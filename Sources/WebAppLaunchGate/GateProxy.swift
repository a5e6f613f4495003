import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization
import WebAppLaunchMiddleware
import WebAppRegistry

/// Forwards a request that has a valid session to the upstream, with the identity headers,
/// and streams the answer back, through the gate's own ``UpstreamClient`` (SwiftNIO channels,
/// a bounded keep-alive pool).
///
/// - Bodies stream in both directions; neither is collected in memory. A request body larger
///   than ``GateConfiguration/maximumRequestBodyBytes`` gets 413 (announced by
///   `Content-Length`: before the upstream is contacted); a response body larger than
///   ``GateConfiguration/maximumResponseBodyBytes`` gives 502 when announced, or is cut off
///   when it grows past the limit while streaming.
/// - Upstream refuses or fails → 502 Bad Gateway; no connection or no response head in time
///   → 504 Gateway Timeout. Connection attempts are not retried, so a down upstream answers
///   at once rather than at the deadline.
/// - Redirects from the upstream are passed to the browser, never followed by the gate.
/// - The request target goes upstream byte for byte, or not at all (400: not an origin-form
///   target of RFC 3986 characters, ``forwardableTarget(_:)``): never rewritten.
/// - Each session has at most ``GateConfiguration/maximumUpstreamConnectionsPerSession``
///   requests upstream at once (429 beyond), and a response of at most
///   ``GateConfiguration/responseBufferBytes`` is read whole before the client gets it, so a
///   slow reader holds no upstream connection; a larger one streams, and a chunk the client has
///   not taken within ``GateConfiguration/clientWriteTimeout`` ends it.
/// - Logs carry the method, status and error type: never headers, cookies or bodies.
///
/// A class of constants, not a struct: the event loop's relay hands it to the callbacks of
/// every exchange, and a struct of this many references was copied into each, a retain and
/// a release per reference per request.
public final class GateProxy: Sendable {
    /// What ``forward(_:session:logger:)`` returns: whose answer it is is known where it is
    /// made, so nothing downstream has to look at the response to tell.
    public enum Outcome: Sendable {
        /// The upstream's response, its headers cleaned: passed on as the upstream sent it.
        case upstream(Response)
        /// The gate's own refusal (400, 413, 429, 502, 504): it gets the gate's security headers.
        case refused(Response)
    }

    let client: UpstreamClient
    let upstream: GateUpstream
    let publicURL: RegisteredURL
    let passAccessToken: Bool
    let maximumRequestBodyBytes: Int
    let maximumResponseBodyBytes: Int
    let responseTimeout: Duration
    let responseBufferBytes: Int
    let clientWriteTimeout: Duration
    let slots: SessionUpstreamSlots
    /// Where failed exchanges are counted (`webapp_launch_gate_upstream_failures_total`), or `nil`.
    let metricsFactory: (any MetricsFactory)?

    /// Creates a proxy.
    /// - Parameters:
    ///   - client: The upstream client (configured by ``makeClient(configuration:upstream:)``).
    ///   - configuration: The gate's configuration.
    ///   - upstream: The upstream origin.
    ///   - metricsFactory: Where failed exchanges are counted by status and error code (the
    ///     gate's ``ServerMetrics/factory``), or `nil` for nowhere.
    public init(client: UpstreamClient, configuration: GateConfiguration, upstream: GateUpstream, metricsFactory: (any MetricsFactory)? = nil) {
        self.client = client
        self.metricsFactory = metricsFactory
        self.upstream = upstream
        self.publicURL = configuration.publicURL
        self.passAccessToken = configuration.passAccessToken
        self.maximumRequestBodyBytes = configuration.maximumRequestBodyBytes
        self.maximumResponseBodyBytes = configuration.maximumResponseBodyBytes
        self.responseTimeout = configuration.responseTimeout
        self.responseBufferBytes = configuration.responseBufferBytes
        self.clientWriteTimeout = configuration.clientWriteTimeout
        self.slots = SessionUpstreamSlots(limitPerSession: configuration.maximumUpstreamConnectionsPerSession)
    }

    /// The upstream client for a gate: the configured connection count (at least 1), connect
    /// and read timeouts. It follows no redirects, retries no connection attempt and
    /// decompresses nothing, by construction.
    /// - Parameters:
    ///   - configuration: The gate's configuration.
    ///   - upstream: The upstream origin.
    ///   - logger: Where a reload of an `https` upstream's trusted authorities logs.
    ///   - metricsFactory: Where that reload is counted; the global metrics system by default.
    /// - Returns: A client; shut it down when the gate stops.
    /// - Throws: When the TLS context for an `https` upstream cannot be created (its trusted
    ///   certificates unreadable: ``ConfigurationError``).
    public static func makeClient(
        configuration: GateConfiguration,
        upstream: GateUpstream,
        logger: Logger = Logger(label: "webapp-launch.gate"),
        metricsFactory: (any MetricsFactory)? = nil
    ) throws -> UpstreamClient {
        try UpstreamClient(configuration: .init(configuration, upstream: upstream), logger: logger, metricsFactory: metricsFactory)
    }

    /// Forwards one request.
    /// - Parameters:
    ///   - request: The client's request.
    ///   - session: Its verified session.
    ///   - logger: Where failures are logged (no personal data).
    /// - Returns: The upstream's response, or the gate's 400, 413, 429, 502 or 504.
    public func forward(_ request: Request, session: LaunchSession, logger: Logger) async -> Outcome {
        guard let target = request.head.path, Self.forwardableTarget(target) else {
            // Not an origin-form target of RFC 3986 characters (`*`, a stray `%`): refused, not changed.
            logger.notice("gate.target_not_forwardable", metadata: ["method": "\(request.method)"])
            return .refused(GateErrorResponse.make(.badRequest))
        }
        guard let lease = slots.lease(for: Self.slotKey(session)) else {
            logger.notice("gate.session_upstream_limit", metadata: ["method": "\(request.method)", "status": "429"])
            var response = GateErrorResponse.make(.tooManyRequests)
            response.headers[.retryAfter] = "1"
            return .refused(response)
        }
        let announcedLength = request.headers[.contentLength].flatMap { Int($0) }
        if let announcedLength, announcedLength > maximumRequestBodyBytes {
            logger.notice("gate.request_too_large", metadata: ["method": "\(request.method)"])
            return .refused(GateErrorResponse.make(.contentTooLarge))
        }
        let tripped = LimitTripwire()
        let hasBody = (announcedLength ?? 0) > 0 || request.headers[.transferEncoding] != nil
        var requestBody: LimitedRequestBody?
        if hasBody {
            // A form POST to the app's path that was too large for the launch reader is
            // scanned on its way: a launch piece in it stops it before it reaches the app.
            let kind = LaunchRequestKind(method: request.method, target: Substring(target), contentType: request.headers[.contentType], appPaths: [publicURL.path])
            requestBody = LimitedRequestBody(
                base: request.body, limit: maximumRequestBodyBytes, tripwire: tripped,
                scanner: kind.mayCarryLaunchInBody ? LaunchPieceScanner() : nil
            )
        }
        let upstreamRequest = upstreamHead(request.head, target: target, session: session, hasBody: hasBody, announcedLength: announcedLength)

        let response: UpstreamResponse
        do {
            response = try await client.execute(upstreamRequest, body: requestBody, deadline: .now() + TimeAmount(responseTimeout)) { error in
                sentAgain(after: error, method: request.method, logger: logger)
            }
        } catch {
            switch tripped.reason {
            case .tooLarge?:
                logger.notice("gate.request_too_large", metadata: ["method": "\(request.method)"])
                return .refused(GateErrorResponse.make(.contentTooLarge))
            case .launchInBody?:
                logger.notice("launch.rejected", metadata: ["code": "\(LaunchVerificationMiddleware<WebAppRequestContext>.misplacedLaunchCode)"])
                return .refused(GateErrorResponse.make(.badRequest))
            case nil:
                break
            }
            return .refused(GateErrorResponse.make(failed(error, method: request.method, logger: logger)))
        }

        let head: HTTPResponse
        let responseLength: Int?
        switch plan(response.head, method: request.method, logger: logger) {
        case .tooLarge:
            response.release()
            return .refused(GateErrorResponse.make(.badGateway))
        case .whole(let planned, let length):
            do {
                let whole = try await response.collect(upTo: length)
                return .upstream(Response(status: planned.status, headers: planned.headerFields, body: .init(byteBuffer: whole)))
            } catch {
                return .refused(GateErrorResponse.make(failed(error, method: request.method, logger: logger)))
            }
        case .stream(let planned, let length):
            head = planned
            responseLength = length
        }
        let status = head.status
        let headers = head.headerFields
        let limit = maximumResponseBodyBytes
        let writeTimeout = clientWriteTimeout
        let body = ResponseBody(contentLength: responseLength) { writer in
            // The lease lives as long as the body is being written (or until the response is dropped).
            withExtendedLifetime(lease) {}
            var total = 0
            do {
                while true {
                    let chunks = try await response.nextChunks()
                    if chunks.isEmpty { break }
                    for chunk in chunks {
                        total += chunk.readableBytes
                        // Past the limit the response is cut off: its head is already sent.
                        guard total <= limit else { throw ResponseBodyTooLarge() }
                        try await ClientWriteDeadline.write(chunk, to: &writer, within: writeTimeout)
                    }
                }
            } catch {
                response.release()  // unfinished: the connection is closed
                throw error
            }
            // The end was read: the connection went back to the pool with it.
            try await writer.finish(nil)
            withExtendedLifetime(lease) {}
        }
        return .upstream(Response(status: status, headers: headers, body: body))
    }

    /// The request head that goes upstream: the client's target byte for byte, the client's
    /// fields without hop-by-hop, forwarding and identity fields (``UpstreamRequestHeaders``),
    /// the session's identity, and framing of the gate's own (``UpstreamClient/frame(_:bodyLength:hasBody:)``).
    /// Both runners, the task and the event loop, build it here.
    /// - Parameters:
    ///   - request: The client's request head.
    ///   - target: Its target, already found forwardable (``forwardableTarget(_:)``).
    ///   - session: Its verified session.
    ///   - hasBody: Whether a body follows.
    ///   - announcedLength: The client's `Content-Length`, if any.
    func upstreamHead(_ request: HTTPRequest, target: String, session: LaunchSession, hasBody: Bool, announcedLength: Int?) -> HTTPRequestHead {
        var headers = UpstreamRequestHeaders.headers(
            from: request.headerFields,
            session: session,
            includeAccessToken: passAccessToken,
            publicURL: publicURL
        )
        UpstreamClient.frame(&headers, bodyLength: hasBody ? announcedLength : (announcedLength == 0 ? 0 : nil), hasBody: hasBody)
        return HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue), uri: target, headers: headers)
    }

    /// What the gate does with an upstream response, decided from its head.
    enum ResponsePlan {
        /// Announced over ``GateConfiguration/maximumResponseBodyBytes``: 502 (logged).
        case tooLarge
        /// Read whole (its announced length, at most ``GateConfiguration/responseBufferBytes``)
        /// before the client gets a byte, so the upstream connection and the session's slot
        /// are free again however slowly the client reads.
        case whole(HTTPResponse, length: Int)
        /// Streamed, with its announced length if any.
        case stream(HTTPResponse, length: Int?)
    }

    /// The client's response head for an upstream's (hop-by-hop and identity fields removed,
    /// nothing added) and how its body goes: one decision for both runners.
    /// - Parameters:
    ///   - head: The upstream's response head.
    ///   - method: The client's request method (a HEAD response has no body to read).
    ///   - logger: Where a response too large is logged.
    func plan(_ head: HTTPResponseHead, method: HTTPRequest.Method, logger: Logger) -> ResponsePlan {
        // One pass: hop-by-hop and identity fields are never copied.
        let hopByHop = HopByHopHeaders.Filter(connectionValues: head.headers["connection"])
        var headers = HTTPFields()
        headers.reserveCapacity(head.headers.count)
        // The length is read in the same pass; two `Content-Length` fields give none (as
        // `HTTPFields` would join them), and the body is streamed.
        var lengthValues = 0
        var lengthValue: String?
        for (name, value) in head.headers {
            guard let fieldName = HTTPField.Name(name), !hopByHop.isHopByHop(fieldName.canonicalName), !IdentityHeaders.isIdentityField(fieldName) else {
                continue
            }
            if fieldName == .contentLength {
                lengthValues += 1
                lengthValue = value
            }
            headers.append(HTTPField(name: fieldName, value: value))
        }
        let length = lengthValues == 1 ? lengthValue.flatMap { Int($0) } : nil
        if let length, length > maximumResponseBodyBytes {
            logger.error("gate.response_too_large", metadata: ["method": "\(method)", "status": "502"])
            return .tooLarge
        }
        let response = HTTPResponse(status: HTTPResponse.Status(code: Int(head.status.code)), headerFields: headers)
        if let length, length <= responseBufferBytes, method != .head { return .whole(response, length: length) }
        return .stream(response, length: length)
    }

    /// The gate's status for an exchange that failed (504 for a timeout, else 502), logged by
    /// method, status and error code (never a header, cookie or body) and counted by status
    /// and code: an operator sees an upstream going bad on the metrics listener.
    func failed(_ error: any Error, method: HTTPRequest.Method, logger: Logger) -> HTTPResponse.Status {
        let status = Self.status(for: error)
        let code = Self.errorCode(error)
        logger.error("gate.upstream_failed", metadata: [
            "method": "\(method)", "status": "\(status.code)", "error": "\(code)",
        ])
        if let metricsFactory {
            Counter(label: Self.upstreamFailuresLabel, dimensions: [("status", "\(status.code)"), ("error", code)], factory: metricsFactory).increment()
        }
        return status
    }

    /// The counter of failed exchanges, by status and error code.
    public static let upstreamFailuresLabel = "webapp_launch_gate_upstream_failures_total"

    /// Logs and counts a safe request about to go upstream once more because its kept-alive
    /// connection closed under it (``UpstreamClient/isSentAgain(_:hasBody:after:onReusedConnection:)``):
    /// rare when ``GateConfiguration/upstreamIdleTimeout`` is below the app server's keep-alive,
    /// so a steady count says the app closes its connections sooner than the gate thinks.
    func sentAgain(after error: any Error, method: HTTPRequest.Method, logger: Logger) {
        logger.notice("gate.upstream_sent_again", metadata: ["method": "\(method)", "error": "\(Self.errorCode(error))"])
        if let metricsFactory {
            Counter(label: Self.upstreamSentAgainLabel, factory: metricsFactory).increment()
        }
    }

    /// The counter of requests sent upstream once more (``sentAgain(after:method:logger:)``).
    public static let upstreamSentAgainLabel = "webapp_launch_gate_upstream_sent_again_total"

    /// Whether a request target may go upstream byte for byte: origin form (`/` first), and
    /// only the characters RFC 3986 allows in a path and query, with every `%` followed by two
    /// hex digits. Anything else (`*`, a fragment, a space, a stray `%`, bytes outside ASCII)
    /// is refused with 400, as the gate refused every target its earlier HTTP client would
    /// have rewritten; nothing is ever percent-encoded or decoded on the way.
    static func forwardableTarget(_ target: String) -> Bool {
        var bytes = target.utf8.makeIterator()
        guard bytes.next() == UInt8(ascii: "/") else { return false }
        var pendingHexDigits = 0
        while let byte = bytes.next() {
            if pendingHexDigits > 0 {
                guard isHexDigit(byte) else { return false }
                pendingHexDigits -= 1
                continue
            }
            if byte == UInt8(ascii: "%") {
                pendingHexDigits = 2
                continue
            }
            guard byte < 0x80, targetCharacters[Int(byte)] else { return false }
        }
        return pendingHexDigits == 0
    }

    /// RFC 3986 `pchar` (unreserved, sub-delims, `:`, `@`) plus `/` and `?`, by byte.
    private static let targetCharacters: [Bool] = (0..<128).map { byte in
        let scalar = Unicode.Scalar(UInt8(byte))
        return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || "-._~!$&'()*+,;=:@/?".unicodeScalars.contains(scalar)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// The key a session's upstream requests are counted under: app and subject.
    static func slotKey(_ session: LaunchSession) -> String { session.appID + "\u{0}" + session.kvnumber }

    /// 504 for timeouts (connect, response head, read, waiting for a connection), 502 for
    /// anything else.
    static func status(for error: any Error) -> HTTPResponse.Status {
        if let error = error as? UpstreamClientError, error.isTimeout { return .gatewayTimeout }
        return .badGateway
    }

    /// A short code for the log: the client's error case, `tlsHandshakeFailed` for an
    /// upstream whose certificate could not be checked (``UpstreamTrust``: an operator's first
    /// question when an https upstream answers 502), or the error's type; never a URL.
    static func errorCode(_ error: any Error) -> String {
        switch error {
        case let error as UpstreamClientError: "\(error)"
        case NIOSSLError.handshakeFailed, is NIOSSLExtraError: "tlsHandshakeFailed"
        default: String(describing: type(of: error))
        }
    }
}

/// Thrown when the upstream's streamed body grows past the limit.
struct ResponseBodyTooLarge: Error {}

/// Thrown when the client's streamed body grows past the limit.
struct RequestBodyTooLarge: Error {}

/// Remembers why a request body was stopped (over its limit, or a launch piece in a form), so
/// the proxy answers 413 or 400 whatever error the HTTP client reports for the aborted upload.
final class LimitTripwire: Sendable {
    enum Reason: Sendable { case tooLarge, launchInBody }
    // Invariant: the reason is set at most once, never cleared.
    private let tripped = Mutex<Reason?>(nil)

    func trip(_ reason: Reason) { tripped.withLock { if $0 == nil { $0 = reason } } }
    var reason: Reason? { tripped.withLock { $0 } }
}

/// The client's request body, passed through chunk by chunk, failing once it exceeds `limit`
/// or (with a scanner) before the chunk in which a `launch` piece completes.
struct LimitedRequestBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let base: RequestBody
    let limit: Int
    let tripwire: LimitTripwire
    let scanner: LaunchPieceScanner?

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let limit: Int
        let tripwire: LimitTripwire
        var scanner: LaunchPieceScanner?
        var total = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else {
                if var scanner, scanner.finish() {
                    tripwire.trip(.launchInBody)
                    throw LaunchInForwardedBody()
                }
                return nil
            }
            total += chunk.readableBytes
            guard total <= limit else {
                tripwire.trip(.tooLarge)
                throw RequestBodyTooLarge()
            }
            if scanner?.feed(chunk.readableBytesView) == true {
                tripwire.trip(.launchInBody)
                throw LaunchInForwardedBody()
            }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit, tripwire: tripwire, scanner: scanner)
    }
}

/// Thrown when a forwarded form body turns out to carry a `launch` piece.
struct LaunchInForwardedBody: Error {}
