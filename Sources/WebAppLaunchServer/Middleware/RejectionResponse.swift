import Hummingbird
import NIOCore
import WebAppLaunch

/// The answer to a rejected launch: a short page, or JSON when the client asks for it.
///
/// It names only the generic reason and tells the user what to do. The precise error code
/// stays in the server's log, so the response teaches an attacker nothing.
enum RejectionResponse {
    static let hint = "Please open the web app again from the app."

    static func make(_ reason: LaunchError.PublicReason, status: HTTPResponse.Status, for request: Request) -> Response {
        let wantsJSON = request.headers[.accept]?.lowercased().contains("application/json") ?? false
        if wantsJSON {
            let body = #"{"error":"\#(reason.rawValue)","hint":"\#(hint)"}"#
            return Response(
                status: status,
                headers: [.contentType: "application/json; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: body))
            )
        }
        let title = status == .serviceUnavailable ? "Temporarily unavailable" : headline(for: reason)
        return Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: PageAssets.rejectionPage(title: title, reason: reason.rawValue, hint: hint)))
        )
    }

    private static func headline(for reason: LaunchError.PublicReason) -> String {
        switch reason {
        case .invalid: "This link is not valid"
        case .expired: "This link has expired"
        case .alreadyUsed: "This link was already used"
        }
    }
}
