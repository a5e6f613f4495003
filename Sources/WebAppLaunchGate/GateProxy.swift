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
/// - Logs carry the method, status and error type: never headers, cookies or bodies.
public struct GateProxy: Sendable {
    /// The header the gate's own responses never have; marks proxied responses between the
    /// proxy and ``GateResponseHeadersMiddleware`` (removed before the response leaves).
    static let proxiedMarker = HTTPField.Name("X-WebApp-Launch-Gate-Proxied")!

    let client: HTTPClient
    let upstream: GateUpstream
    let publicURL: RegisteredURL
    let passAccessToken: Bool
    let maximumRequestBodyBytes: Int
    let maximumResponseBodyBytes: Int
    let responseTimeout: Duration
    let cookieName: String

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
        // The name the middleware gives the session cookie for this public URL (`__Host-…` over https).
        self.cookieName = LaunchVerificationMiddleware<WebAppRequestContext>.cookieName(for: configuration.publicURL, appID: configuration.appID)
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
    /// - Returns: The upstream's response, or the gate's 413, 502 or 504.
    public func forward(_ request: Request, session: LaunchSession, logger: Logger) async -> Response {
        guard let path = request.head.path, path.hasPrefix("/") else {
            return GateErrorResponse.make(.badRequest)
        }
        var upstreamRequest = HTTPClientRequest(url: upstream.description + path)
        upstreamRequest.method = HTTPMethod(rawValue: request.method.rawValue)
        let fields = UpstreamRequestHeaders.fields(
            from: request.headers,
            session: session,
            includeAccessToken: passAccessToken,
            publicURL: publicURL,
            cookieName: cookieName
        )
        for field in fields {
            upstreamRequest.headers.add(name: field.name.rawName, value: field.value)
        }

        let announcedLength = request.headers[.contentLength].flatMap { Int($0) }
        if let announcedLength, announcedLength > maximumRequestBodyBytes {
            logger.notice("gate.request_too_large", metadata: ["method": "\(request.method)"])
            return GateErrorResponse.make(.contentTooLarge)
        }
        let tripped = LimitTripwire()
        let hasBody = (announcedLength ?? 0) > 0 || request.headers[.transferEncoding] != nil
        if hasBody {
            let body = LimitedRequestBody(base: request.body, limit: maximumRequestBodyBytes, tripwire: tripped)
            upstreamRequest.body = .stream(body, length: announcedLength.map { .known(Int64($0)) } ?? .unknown)
        }

        let response: HTTPClientResponse
        do {
            response = try await client.execute(upstreamRequest, deadline: .now() + TimeAmount(responseTimeout), logger: logger)
        } catch {
            if tripped.isTripped {
                logger.notice("gate.request_too_large", metadata: ["method": "\(request.method)"])
                return GateErrorResponse.make(.contentTooLarge)
            }
            let status = Self.status(for: error)
            logger.error("gate.upstream_failed", metadata: [
                "method": "\(request.method)", "status": "\(status.code)",
                "error": "\(Self.errorCode(error))",
            ])
            return GateErrorResponse.make(status)
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
            return GateErrorResponse.make(.badGateway)
        }
        headers[Self.proxiedMarker] = "1"
        let limit = maximumResponseBodyBytes
        let upstreamBody = response.body
        let body = ResponseBody(contentLength: responseLength) { writer in
            var total = 0
            for try await chunk in upstreamBody {
                total += chunk.readableBytes
                // Past the limit the response is cut off: its head is already sent.
                guard total <= limit else { throw ResponseBodyTooLarge() }
                try await writer.write(chunk)
            }
            try await writer.finish(nil)
        }
        return Response(status: HTTPResponse.Status(code: Int(response.status.code)), headers: headers, body: body)
    }

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

/// Remembers that a request body hit its limit, so the proxy answers 413 whatever error the
/// HTTP client reports for the aborted upload.
final class LimitTripwire: Sendable {
    // Invariant: the flag only ever goes from false to true.
    private let tripped = Mutex(false)

    func trip() { tripped.withLock { $0 = true } }
    var isTripped: Bool { tripped.withLock { $0 } }
}

/// The client's request body, passed through chunk by chunk, failing once it exceeds `limit`.
struct LimitedRequestBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let base: RequestBody
    let limit: Int
    let tripwire: LimitTripwire

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let limit: Int
        let tripwire: LimitTripwire
        var total = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            total += chunk.readableBytes
            guard total <= limit else {
                tripwire.trip()
                throw RequestBodyTooLarge()
            }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit, tripwire: tripwire)
    }
}

extension HTTPClientError {
    /// The case name, without any URL or payload.
    var shortDescription: String {
        let text = String(describing: self)
        return String(text.prefix { $0 != "(" && $0 != ":" }.prefix(64))
    }
}
