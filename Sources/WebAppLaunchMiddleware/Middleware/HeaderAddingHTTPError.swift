import HTTPTypes
import Hummingbird

/// An error from further in, rethrown with headers its response must carry.
///
/// Hummingbird's own `EditedHTTPError` does this for its middleware but is internal; this is
/// the same idea. An error that is not an `HTTPResponseError` becomes a bare 500 (its text is
/// never sent: it may hold anything).
struct HeaderAddingHTTPError: HTTPResponseError {
    let originalError: any Error
    let additionalHeaders: HTTPFields

    var status: HTTPResponse.Status {
        (originalError as? any HTTPResponseError)?.status ?? .internalServerError
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response: Response
        if let originalError = originalError as? any HTTPResponseError {
            response = try originalError.response(from: request, context: context)
        } else {
            response = Response(status: .internalServerError)
        }
        for field in additionalHeaders {
            response.headers[field.name] = field.value
        }
        return response
    }
}
