import HTTPTypes
import Logging
import NIOCore

/// A path whose requests ``LaunchFastPath`` may answer on the connection's event loop, when
/// the whole decision is synchronous and known from the request head.
///
/// Each kind calls the one decision its Hummingbird middleware calls, so the two runners
/// cannot drift: an app's launch route (``LaunchFastPath/Route``: verify, claim in a store
/// that never waits in a task, 303 with the session), the gate's nginx `auth_request` check (a live
/// session and the endpoint's rules, 202 with the identity headers) and the gate's reverse
/// proxy (a live session, relayed to the upstream over an idle kept-alive connection, one of
/// the same event loop first: ``FastPathAnswer/relayed(_:)``).
public protocol FastPathRoute: AnyObject, Sendable {
    /// The answer to a GET without a body, decided at its head; `nil` sends the request on to
    /// Hummingbird, which answers it as it always did (so a route only takes the requests
    /// whose answer it shares with Hummingbird's path, and leaves the rest).
    /// - Parameters:
    ///   - request: The request head. Its `path` is not set on the event loop's runner (the
    ///     target is checked only if the request goes on to Hummingbird:
    ///     ``UncheckedHeadValues``); `target`, `path` and `query` are the request's.
    ///   - target: The request target as it arrived (origin form: path and query).
    ///   - path: Its path (the route's own, byte for byte).
    ///   - query: Its raw query, or `nil` without a `?`.
    ///   - loop: The event loop of the request's connection (where a relayed answer completes).
    ///   - logger: Where the decision is logged, as the middleware logs it.
    /// - Returns: The answer, or `nil` to pass the request on.
    /// - Throws: When the answer cannot be made (the runner answers 500, as Hummingbird does).
    func answer(_ request: HTTPRequest, target: String, path: Substring, query: Substring?, on loop: any EventLoop, logger: Logger) throws -> FastPathAnswer?
}
