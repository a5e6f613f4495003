import HTTPTypes
import Logging
import NIOCore

/// Launches exchanged on the connection's event loop, without a Swift task per request.
///
/// On Hummingbird's path a launch costs a task switch to the cooperative pool and back, the
/// request and response types, the router and every middleware: most of its CPU when the
/// exchange itself is a few microseconds. When the app's replay store claims at once
/// (``SynchronousReplayStore``: the in-memory store) or answers its claim through a callback
/// (``CallbackReplayStore``: PostgreSQL, the answer written when the claim's batch
/// returns), ``LaunchFastPathHandler`` answers a launch (a GET to an app's own path whose
/// query carries `launch`) in the channel pipeline. Everything else, and every launch whose
/// store can do neither (SQLite), goes on to Hummingbird as before. The gate's nginx
/// `auth_request` check (`GET /auth` with a live session) takes the same path, and so do the
/// gate's proxied GETs, whose answer is relayed from an upstream connection when it comes
/// (``FastPathAnswer/relayed(_:)``): any ``FastPathRoute`` can.
///
/// It is the same exchange, not a second one: ``LaunchExchange`` decides and logs for both
/// runners, ``LaunchRequestKind`` says what a launch is for both, and the response carries
/// the same security header fields the listener's ``SecurityHeadersMiddleware`` adds, plus
/// `Date`. A test holds every answer of both paths side by side.
public struct LaunchFastPath: Sendable {
    /// Where a launch to one app path is exchanged: built once per loaded configuration
    /// (a class, so a request's lookup hands on one reference, not the exchange's fields).
    public final class Route: FastPathRoute {
        /// How a route's store answers a claim without a task.
        public enum Store: Sendable {
            /// At once, under a lock (the in-memory store).
            case synchronous(any SynchronousReplayStore)
            /// Through a callback, when its I/O is done (PostgreSQL).
            case callback(any CallbackReplayStore)

            /// The store's way, when it has one: `nil` for a store that only waits in a task.
            /// - Parameter store: An app's replay store.
            public init?(_ store: any ReplayStore) {
                if let store = store as? any SynchronousReplayStore {
                    self = .synchronous(store)
                } else if let store = store as? any CallbackReplayStore {
                    self = .callback(store)
                } else {
                    return nil
                }
            }
        }

        /// The app's exchange.
        public let exchange: LaunchExchange
        /// The app's store.
        public let store: Store
        /// The app path the route answers (the audience's path, byte for byte).
        public let path: String

        /// - Parameters:
        ///   - exchange: The app's exchange.
        ///   - store: Its store.
        ///   - path: The path it answers.
        public init(exchange: LaunchExchange, store: Store, path: String) {
            self.exchange = exchange
            self.store = store
            self.path = path
        }

        /// Exchanges a query launch (``LaunchRequestKind/queryLaunch``) whose claim never
        /// waits in a task; any other request to the path is passed on.
        public func answer(
            _ request: HTTPRequest, target: String, path: Substring, query: Substring?, on loop: any EventLoop, logger: Logger
        ) throws -> FastPathAnswer? {
            guard let query,
                LaunchRequestKind(method: request.method, path: path, query: query, contentType: request.headerFields[.contentType], appPaths: [self.path])
                    == .queryLaunch
            else { return nil }
            switch store {
            case .synchronous(let store):
                return .now(try exchange.exchange(query: query, headers: request.headerFields, store: store, logger: logger))
            case .callback(let store):
                return exchange.exchange(query: query, headers: request.headerFields, store: store, on: loop, logger: logger)
            }
        }
    }

    /// What a route's error is answered with, as on Hummingbird's path.
    static let internalError = LaunchAnswer(status: .internalServerError, headerFields: [:])

    /// The route of an exact request path, looked up per request (so a reload's keys apply
    /// from the next request on), or `nil` to pass the request on.
    let route: @Sendable (Substring) -> (any FastPathRoute)?
    /// The fields every response of the listener carries (``SecurityHeadersMiddleware/headers``).
    let responseFields: HTTPFields
    /// The names of the fields ``headerFields(of:)`` adds: an answer that has none of them
    /// (every launch answer) gets them appended, without a search of its fields per name.
    private let addedFieldNames: Set<HTTPField.Name>
    /// Where exchanges are logged.
    let logger: Logger

    /// Creates the fast path of a listener.
    /// - Parameters:
    ///   - securityHeaders: The listener's security headers middleware: its fields go on
    ///     every answer here too.
    ///   - logger: Where exchanges are logged.
    ///   - route: The route of an exact request path, or `nil` for a path Hummingbird must
    ///     answer (not an app's, or an app whose store waits; not the gate's `/auth`).
    public init<Context>(
        securityHeaders: SecurityHeadersMiddleware<Context>,
        logger: Logger,
        route: @escaping @Sendable (Substring) -> (any FastPathRoute)?
    ) {
        self.responseFields = securityHeaders.headers
        addedFieldNames = Set(responseFields.map(\.name) + [.contentLength, .date])
        self.logger = logger
        self.route = route
    }

    /// The head fields of an answer as the listener sends it, as Hummingbird's path sends
    /// any response: the answer's own fields, its `Content-Length`, the listener's security
    /// fields (each replacing one of the same name) and `Date`.
    /// - Parameter answer: The answer.
    /// - Returns: The fields.
    func headerFields(of answer: LaunchAnswer) -> HTTPFields {
        var fields = answer.headerFields
        let length = String(answer.body.readableBytes)
        let date = HTTPDateCache.shared.value
        guard fields.contains(where: { addedFieldNames.contains($0.name) }) else {
            fields.reserveCapacity(fields.count + responseFields.count + 2)
            fields.append(HTTPField(name: .contentLength, value: length))
            fields.append(contentsOf: responseFields)
            fields.append(HTTPField(name: .date, value: date))
            return fields
        }
        fields[.contentLength] = length
        for field in responseFields { fields[fields: field.name] = [field] }
        fields[.date] = date
        return fields
    }

    /// The answer to a request, when a route answers it here: a GET with no body and no
    /// `Connection` option but keep-alive, to a path with a route, which decides
    /// (``FastPathRoute/answer(_:target:path:query:on:logger:)``). An error of the route is logged by
    /// type and answered 500, as on Hummingbird's path.
    /// - Parameters:
    ///   - request: The request head; its `path` may be unset (``UncheckedHeadValues``).
    ///   - target: The request's target, as it arrived.
    ///   - loop: The event loop of the request's connection.
    /// - Returns: The answer, or `nil` to pass the request on.
    func answer(for request: HTTPRequest, target: String, on loop: any EventLoop) -> FastPathAnswer? {
        guard request.method == .get else { return nil }
        let fields = request.headerFields
        // A body, or a connection option other than keep-alive (`close`, an upgrade), is
        // Hummingbird's to handle.
        if let length = fields[.contentLength], length != "0" { return nil }
        guard fields[.transferEncoding] == nil else { return nil }
        if let connection = fields[.connection], connection.lowercased() != "keep-alive" { return nil }
        let bytes = target.utf8
        let mark = bytes.firstIndex(of: UInt8(ascii: "?"))
        let path = Substring(bytes[..<(mark ?? bytes.endIndex)])
        let query = mark.map { Substring(bytes[bytes.index(after: $0)...]) }
        guard let route = route(path) else { return nil }
        do {
            return try route.answer(request, target: target, path: path, query: query, on: loop, logger: logger)
        } catch {
            logger.error("request.failed", metadata: ["error_type": "\(String(describing: type(of: error)))"])
            return .now(Self.internalError)
        }
    }
}
