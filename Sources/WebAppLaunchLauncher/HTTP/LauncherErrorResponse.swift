import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A refusal answered by ``LaunchRequestGate`` before the generated routes run: the document's
/// error body (`{"error": code}`, never the reason), `Cache-Control: no-store`, and the
/// `WWW-Authenticate` / `Retry-After` the code calls for.
enum LauncherErrorResponse {
    static func make(_ error: LauncherError) -> Response {
        let body = (try? LauncherAPI.encoder.encode(Components.Schemas._Error(error: error.code.rawValue))) ?? Data()
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        if let challenge = error.bearerChallenge { headers[.wwwAuthenticate] = challenge }
        if let seconds = error.retryAfterSeconds { headers[.retryAfter] = String(seconds) }
        return Response(
            status: HTTPResponse.Status(code: error.httpStatus),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body))
        )
    }
}
