import HTTPTypes
import NIOCore

/// What a ``FastPathRoute`` answers on the event loop: an answer it made now, or one that
/// comes later from another connection (the gate's upstream).
public enum FastPathAnswer: Sendable {
    /// The route's own answer, decided now. The runner adds `Content-Length`, the listener's
    /// security fields and `Date`, as Hummingbird's path does for every answer of ours.
    case now(LaunchAnswer)
    /// The answer arrives later: the runner holds the connection's later requests until it is
    /// written. The future may complete on any event loop (the runner goes back to the
    /// connection's) and should never fail (a route turns its failures into
    /// ``RelayedAnswer/own(_:)``); a failure is logged by type and answered 500.
    case relayed(EventLoopFuture<RelayedAnswer>)
}

/// A relayed request's outcome, decided once the other side answered.
public enum RelayedAnswer: Sendable {
    /// The route's own answer after all (a 502 or 504 of the gate): written as
    /// ``FastPathAnswer/now(_:)`` is.
    case own(LaunchAnswer)
    /// Another party's response, passed on as it is: only `Date` is set (and
    /// `Content-Length` for a whole body that has none), as Hummingbird does for any response.
    case response(HTTPResponse, RelayedBody)
    /// Nothing was answered and nothing is lost: the request goes to Hummingbird exactly as it
    /// came (the gate's upstream closed a kept-alive connection before a byte of the answer,
    /// and Hummingbird's path sends the request again on another connection).
    case passOn
}

/// The body of a relayed response.
public enum RelayedBody: Sendable {
    /// All of it, read before the client gets a byte.
    case whole(ByteBuffer)
    /// Streamed from its source, one read at a time, each written before the next is asked for.
    case stream(any RelayedBodySource)
}

/// A relayed body read piece by piece on the connection's event loop, so that the client's pace
/// holds the source back (TCP pushes back on whoever sends it).
public protocol RelayedBodySource: AnyObject, Sendable {
    /// How long the client may take to accept one read's bytes before the connection is
    /// closed (a reader that stopped must not hold the source for ever).
    var writeTimeout: TimeAmount { get }
    /// The next bytes, on any event loop: an empty array at the end. A failure
    /// cuts the response off (its head is sent already): the connection is closed.
    func next() -> EventLoopFuture<[ByteBuffer]>
    /// The client is gone, or the response was cut off: let go of the source (it is not read to
    /// its end). Called at most once, and never after ``next()`` returned the end.
    func abandon()
}
