import Hummingbird
import WebAppLaunch

/// The answer to a rejected launch: a short page, or JSON when the client asks for it.
///
/// It names only the generic reason and tells the user what to do. The precise error code
/// stays in the server's log, so the response teaches an attacker nothing.
struct RejectionResponse: ResponseGenerator {
    static let hint = "Please open the web app again from the app."

    /// The JSON form: `{"error": reason, "hint": …}`.
    struct Body: ResponseEncodable {
        let error: String
        let hint: String
    }

    let reason: LaunchError.PublicReason
    let status: HTTPResponse.Status

    init(_ reason: LaunchError.PublicReason, status: HTTPResponse.Status) {
        self.reason = reason
        self.status = status
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let wantsJSON = request.headers[.accept]?.lowercased().contains("application/json") ?? false
        if wantsJSON {
            var response = try Body(error: reason.rawValue, hint: Self.hint).response(from: request, context: context)
            response.status = status
            return response
        }
        let title = status == .serviceUnavailable ? "Temporarily unavailable" : headline
        return try HTMLResponse(RejectionPage.html(title: title, reason: reason.rawValue, hint: Self.hint), status: status)
            .response(from: request, context: context)
    }

    private var headline: String {
        switch reason {
        case .invalid: "This link is not valid"
        case .expired: "This link has expired"
        case .alreadyUsed: "This link was already used"
        case .noSession: "Please start this web app from your app"
        }
    }
}
