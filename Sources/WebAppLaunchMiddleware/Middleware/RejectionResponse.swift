import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WebAppLaunch

/// The answer to a rejected launch: a short page, or JSON when the client asks for it.
///
/// It names only the generic reason and tells the user what to do. The precise error code
/// stays in the server's log, so the response teaches an attacker nothing. Both runners of
/// the exchange answer with ``answer(accepting:)``, so a rejection reads the same whichever
/// path served it.
struct RejectionResponse: ResponseGenerator {
    static let hint = "Please open the web app again from the app."

    /// The JSON form: `{"error": reason, "hint": …}`.
    struct Body: Encodable {
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
        answer(accepting: request.headers[.accept]).response
    }

    /// The rejection as the exchange's answer.
    /// - Parameter accept: The request's `Accept` value: JSON when it names `application/json`.
    /// - Returns: The answer.
    func answer(accepting accept: String?) -> LaunchAnswer {
        if accept?.lowercased().contains("application/json") ?? false {
            // Keys sorted: the same bytes on every answer (an unsorted encoder's order varies).
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let json = (try? encoder.encode(Body(error: reason.rawValue, hint: Self.hint))) ?? Data()
            return LaunchAnswer(status: status, headerFields: [.contentType: "application/json; charset=utf-8"], body: ByteBuffer(bytes: json))
        }
        let title = status == .serviceUnavailable ? "Temporarily unavailable" : headline
        return LaunchAnswer(
            status: status,
            headerFields: [.contentType: HTMLResponse.contentType],
            body: ByteBuffer(string: RejectionPage.html(title: title, reason: reason.rawValue, hint: Self.hint))
        )
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
