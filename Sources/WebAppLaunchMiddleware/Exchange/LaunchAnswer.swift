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
    /// The exchange's fields (`Location`, or the rejection's content type).
    public var headerFields: HTTPFields
    /// The value of the session's `Set-Cookie` field, sent right after ``headerFields``; `nil`
    /// for an answer that opens no session.
    ///
    /// Kept apart from ``headerFields`` because the exchange built every byte of it (see
    /// `SessionCookieCodec`): an `HTTPField` has HTTP Types check each byte of its value
    /// again, and for a cookie of 1-2 KB that check was 4 % of a launch's CPU. The event
    /// loop's runner writes it as it is (``OriginFormRequestCodec``); ``response`` makes it a
    /// field for Hummingbird.
    public var sessionCookie: String?
    /// The body; empty for a redirect.
    public var body: ByteBuffer

    /// Creates an answer.
    /// - Parameters:
    ///   - status: The status.
    ///   - headerFields: The exchange's fields.
    ///   - sessionCookie: The session's `Set-Cookie` value, or `nil` (the default).
    ///   - body: The body, empty by default.
    public init(status: HTTPResponse.Status, headerFields: HTTPFields, sessionCookie: String? = nil, body: ByteBuffer = ByteBuffer()) {
        self.status = status
        self.headerFields = headerFields
        self.sessionCookie = sessionCookie
        self.body = body
    }

    /// Where the session's `Set-Cookie` goes among a response's fields that begin with
    /// ``headerFields``: right after them, before anything a runner adds. The one place of
    /// the cookie, whether it is written as a checked field (``placingSessionCookie(in:)``)
    /// or handed to the codec as it is.
    public var sessionCookieIndex: Int { headerFields.count }

    /// `fields`, a response's fields that begin with ``headerFields``, with the session's
    /// `Set-Cookie` (checked by HTTP Types like any field) at ``sessionCookieIndex``;
    /// `fields` as they are for an answer that opens no session.
    /// - Parameter fields: The response's fields, beginning with ``headerFields``.
    /// - Returns: The fields to send.
    public func placingSessionCookie(in fields: HTTPFields) -> HTTPFields {
        guard let sessionCookie else { return fields }
        var fields = fields
        fields.insert(HTTPField(name: .setCookie, value: sessionCookie), at: sessionCookieIndex)
        return fields
    }

    /// The answer as Hummingbird's response: its fields, then the session's `Set-Cookie`.
    public var response: Response {
        Response(status: status, headers: placingSessionCookie(in: headerFields), body: .init(byteBuffer: body))
    }
}
