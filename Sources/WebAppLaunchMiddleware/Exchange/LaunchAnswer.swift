import HTTPTypes
import Hummingbird
import NIOCore

/// What the launch exchange answers, before any framework turns it into a response: a
/// status, the exchange's own header fields and a body.
///
/// The exchange is one mechanism with two runners (``LaunchVerificationMiddleware`` on
/// Hummingbird's request path, and the event-loop launch path of ``LaunchFastPath``), so
/// its answers are plain values both write out: neither can build a launch's response its
/// own way. The security headers and `Date` are added by the runner, as for every response.
public struct LaunchAnswer: Sendable {
    /// The status.
    public var status: HTTPResponse.Status
    /// The exchange's fields (`Location` and `Set-Cookie`, or the rejection's content type).
    public var headerFields: HTTPFields
    /// The body; empty for a redirect.
    public var body: ByteBuffer

    /// Creates an answer.
    /// - Parameters:
    ///   - status: The status.
    ///   - headerFields: The exchange's fields.
    ///   - body: The body, empty by default.
    public init(status: HTTPResponse.Status, headerFields: HTTPFields, body: ByteBuffer = ByteBuffer()) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }

    /// The answer as Hummingbird's response.
    public var response: Response {
        Response(status: status, headers: headerFields, body: .init(byteBuffer: body))
    }
}
