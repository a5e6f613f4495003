import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import WebAppLaunchMiddleware
import WebAppRegistry

/// Forwards a request that has a valid session to the upstream, with the identity headers,
/// and streams the answer back, through async-http-client.
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
/// - The request target goes upstream byte for byte, or not at all (400): never rewritten.
/// - Each session has at most ``GateConfiguration/maximumUpstreamConnectionsPerSession``
///   requests upstream at once (429 beyond), and a response of at most
///   ``GateConfiguration/responseBufferBytes`` is read whole before the client gets it, so a
///   slow reader holds no upstream connection; a larger one streams, and a chunk the client has
///   not taken within ``GateConfiguration/clientWriteTimeout`` ends it.
/// - Logs carry the method, status and error type: never headers, cookies or bodies.
public struct GateProxy: Sendable {
    /// What ``forward(_:session:logger:)`` returns: whose answer it is is known where it is
    /// made, so nothing downstream has to look at the response to tell.
    public enum Outcome: Sendable {
        /// The upstream's response, its headers cleaned: passed on as the upstream sent it.
        case upstream(Response)
        /// The gate's own refusal (400, 413, 429, 502, 504): it gets the gate's security headers.
        case refused(Response)
    }

    let client: HTTPClient
    let upstream: GateUpstream
    let publicURL: RegisteredURL
    let passAccessToken: Bool
    let maximumRequestBodyBytes: Int
    let maximumResponseBodyBytes: Int
    let responseTimeout: Duration
    let responseBufferBytes: Int
    let clientWriteTimeout: Duration
    let slots: SessionUpstreamSlots

    /// Creates a proxy.
    /// - Parameters:
    ///   - client: The HTTP client (configured by ``makeClient(configuration:)``).
    ///   - configuration: The gate's configuration.
    ///   - upstream: The upstream origin.
    public init(client: HTTPClient, configuration: GateConfiguration, upstream: GateUpstream) {
        self.client = client
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

    /// An HTTP client suited to proxying: no redirects followed, no retried connection
    /// attempts (a down upstream answers 502 at once), the configured connect and read
    /// timeouts and upstream connection count, no decompression.
    /// - Parameter configuration: The gate's configuration.
    /// - Returns: A client; shut it down when the gate stops.
    public static func makeClient(configuration: GateConfiguration) -> HTTPClient {
        HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration(for: configuration))
    }

    /// The HTTP client settings ``makeClient(configuration:)`` uses.
    static func clientConfiguration(for configuration: GateConfiguration) -> HTTPClient.Configuration {
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, configuration.maximumUpstreamConnections)
        clientConfiguration.redirectConfiguration = .disallow
        clientConfiguration.timeout = .init(
            connect: TimeAmount(configuration.connectTimeout),
            read: TimeAmount(configuration.readTimeout)
        )
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        clientConfiguration.decompression = .disabled
        return clientConfiguration
    }

    /// Forwards one request.
    /// - Parameters:
    ///   - request: The client's request.
    ///   - session: Its verified session.
    ///   - logger: Where failures are logged (no personal data).
    /// - Returns: The upstream's response, or the gate's 400, 413, 429, 502 or 504.
    public func forward(_ request: Request, session: LaunchSession, logger: Logger) async -> Outcome {
        guard let target = request.head.path, let url = Self.upstreamURL(origin: upstream.description, target: target) else {
            // The HTTP client would rewrite this target (`//x`, a stray `%`): refused, not changed.
            logger.notice("gate.target_not_forwardable", metadata: ["method": "\(request.method)"])
            return .refused(GateErrorResponse.make(.badRequest))
        }
        guard let lease = slots.lease(for: Self.slotKey(session)) else {
            logger.notice("gate.session_upstream_limit", metadata: ["method": "\(request.method)", "status": "429"])
            var response = GateErrorResponse.make(.tooManyRequests)
            response.headers[.retryAfter] = "1"
            return .refused(response)
        }
        var upstreamRequest = HTTPClientRequest(url: url)
        upstreamRequest.method = HTTPMethod(rawValue: request.method.rawValue)
        let fields = UpstreamRequestHeaders.fields(
            from: request.headers,
            session: session,
            includeAccessToken: passAccessToken,
            publicURL: publicURL
        )
        for field in fields {
            upstreamRequest.headers.add(name: field.name.rawName, value: field.value)
        }

        let announcedLength = request.headers[.contentLength].flatMap { Int($0) }
        if let announcedLength, announcedLength > maximumRequestBodyBytes {
            logger.notice("gate.request_too_large", metadata: ["method": "\(request.method)"])
            return .refused(GateErrorResponse.make(.contentTooLarge))
        }
        let tripped = LimitTripwire()
        let hasBody = (announcedLength ?? 0) > 0 || request.headers[.transferEncoding] != nil
        if hasBody {
            // A form POST to the app's path that was too large for the launch reader is
            // scanned on its way: a launch piece in it stops it before it reaches the app.
            let kind = LaunchRequestKind(method: request.method, target: Substring(target), contentType: request.headers[.contentType], appPaths: [publicURL.path])
            let body = LimitedRequestBody(
                base: request.body, limit: maximumRequestBodyBytes, tripwire: tripped,
                scanner: kind.mayCarryLaunchInBody ? LaunchPieceScanner() : nil
            )
            upstreamRequest.body = .stream(body, length: announcedLength.map { .known(Int64($0)) } ?? .unknown)
        }

        let response: HTTPClientResponse
        do {
            response = try await client.execute(upstreamRequest, deadline: .now() + TimeAmount(responseTimeout), logger: logger)
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
            let status = Self.status(for: error)
            logger.error("gate.upstream_failed", metadata: [
                "method": "\(request.method)", "status": "\(status.code)",
                "error": "\(Self.errorCode(error))",
            ])
            return .refused(GateErrorResponse.make(status))
        }

        var headers = HTTPFields()
        for (name, value) in response.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            headers.append(HTTPField(name: fieldName, value: value))
        }
        headers = IdentityHeaders.removingSpoofableFields(from: HopByHopHeaders.removing(from: headers))
        let responseLength = headers[.contentLength].flatMap { Int($0) }
        if let responseLength, responseLength > maximumResponseBodyBytes {
            logger.error("gate.response_too_large", metadata: ["method": "\(request.method)", "status": "502"])
            return .refused(GateErrorResponse.make(.badGateway))
        }
        let status = HTTPResponse.Status(code: Int(response.status.code))
        if let responseLength, responseLength <= responseBufferBytes, request.method != .head {
            // Read whole before the client gets a byte: the upstream connection and the
            // session's slot are free again however slowly the client reads.
            do {
                let whole = try await response.body.collect(upTo: responseLength)
                return .upstream(Response(status: status, headers: headers, body: .init(byteBuffer: whole)))
            } catch {
                let status = Self.status(for: error)
                logger.error("gate.upstream_failed", metadata: [
                    "method": "\(request.method)", "status": "\(status.code)", "error": "\(Self.errorCode(error))",
                ])
                return .refused(GateErrorResponse.make(status))
            }
        }
        let limit = maximumResponseBodyBytes
        let writeTimeout = clientWriteTimeout
        let upstreamBody = response.body
        let body = ResponseBody(contentLength: responseLength) { writer in
            // The lease lives as long as the body is being written (or until the response is dropped).
            withExtendedLifetime(lease) {}
            var total = 0
            for try await chunk in upstreamBody {
                total += chunk.readableBytes
                // Past the limit the response is cut off: its head is already sent.
                guard total <= limit else { throw ResponseBodyTooLarge() }
                try await ClientWriteDeadline.write(chunk, to: &writer, within: writeTimeout)
            }
            try await writer.finish(nil)
            withExtendedLifetime(lease) {}
        }
        return .upstream(Response(status: status, headers: headers, body: body))
    }

    /// The upstream URL for a request target, when the HTTP client sends that target
    /// byte for byte; `nil` when it would rewrite it (the gate then answers 400).
    ///
    /// async-http-client parses the URL with Foundation and sends its percent-encoded path
    /// and query, which is the original only when Foundation changed nothing; comparing the
    /// two is exact whatever Foundation does.
    static func upstreamURL(origin: String, target: String) -> String? {
        guard target.hasPrefix("/") else { return nil }
        let text = origin + target
        guard let url = URL(string: text) else { return nil }
        let path = url.path.isEmpty ? "/" : (URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path)
        let sent = path + (url.query.map { "?" + $0 } ?? "")
        return sent == target ? text : nil
    }

    /// The key a session's upstream requests are counted under: app and subject.
    static func slotKey(_ session: LaunchSession) -> String { session.appID + "\u{0}" + session.kvnumber }

    /// 504 for timeouts (connect, response head, read), 502 for anything else.
    static func status(for error: any Error) -> HTTPResponse.Status {
        if let error = error as? HTTPClientError,
           [.connectTimeout, .deadlineExceeded, .readTimeout, .getConnectionFromPoolTimeout].contains(error) {
            return .gatewayTimeout
        }
        return .badGateway
    }

    /// A short code for the log: the AHC error's description or the error's type, never a URL.
    static func errorCode(_ error: any Error) -> String {
        if let error = error as? HTTPClientError { return error.shortDescription }
        return String(describing: type(of: error))
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

extension HTTPClientError {
    /// The case name, without any URL or payload.
    var shortDescription: String {
        let text = String(describing: self)
        return String(text.prefix { $0 != "(" && $0 != ":" }.prefix(64))
    }
}
