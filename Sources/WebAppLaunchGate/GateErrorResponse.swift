import HTTPTypes
import Hummingbird
import NIOCore

/// The gate's own short error answers (400, 413, 502, 504): the status and its reason phrase
/// as plain text, nothing about the upstream or the request.
enum GateErrorResponse {
    static func make(_ status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: "\(status.code) \(status.reasonPhrase)\n"))
        )
    }
}
