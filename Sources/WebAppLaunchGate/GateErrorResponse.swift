import HTTPTypes
import Hummingbird
import NIOCore
import WebAppLaunchMiddleware

/// The gate's own short error answers (400, 413, 502, 504): the status and its reason phrase
/// as plain text, nothing about the upstream or the request.
enum GateErrorResponse {
    /// The answer, for either runner (the event loop adds the security headers to it).
    static func answer(_ status: HTTPResponse.Status) -> LaunchAnswer {
        LaunchAnswer(
            status: status,
            headerFields: [.contentType: "text/plain; charset=utf-8"],
            body: ByteBuffer(string: "\(status.code) \(status.reasonPhrase)\n")
        )
    }

    /// The answer as Hummingbird's response.
    static func make(_ status: HTTPResponse.Status) -> Response { answer(status).response }
}
