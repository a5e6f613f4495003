import Foundation
import WebAppRegistry

/// The body of `POST /v1/launches`: `{"app": "ID"}` and nothing else.
///
/// Strict on purpose: a body that also carried names or a KVNR would suggest the launcher
/// uses them, and it never does (identity comes only from the provider), so any other
/// member is refused rather than ignored.
enum LaunchRequestBody {
    /// The largest body read.
    static let maximumBytes = 1024

    /// The app id in a body.
    /// - Throws: ``LauncherError/Code/invalidRequest`` for anything but exactly `{"app": "<app id>"}`.
    static func appID(from body: Data) throws(LauncherError) -> String {
        // App ids never need escapes; refusing them keeps `"\u0061pp"` from smuggling a
        // second `app` member past the duplicate check below.
        guard !body.contains(UInt8(ascii: "\\")) else {
            throw LauncherError(.invalidRequest, "the body must not contain escapes")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            throw LauncherError(.invalidRequest, "the body is not a JSON object")
        }
        guard object.count == 1, let app = object["app"] as? String else {
            throw LauncherError(.invalidRequest, "the body must be exactly {\"app\": \"ID\"}")
        }
        guard occurrences(of: #""app""#, in: body) == 1 else {
            throw LauncherError(.invalidRequest, "the body names the app more than once")
        }
        guard WebApp.isValidID(app) else {
            throw LauncherError(.invalidRequest, "the app id is not of the registry's syntax")
        }
        return app
    }

    /// How often a byte string occurs (a repeated member would otherwise be taken last-wins).
    private static func occurrences(of needle: String, in body: Data) -> Int {
        let needle = Array(needle.utf8)
        let bytes = Array(body)
        guard bytes.count >= needle.count else { return 0 }
        var count = 0
        for start in 0...(bytes.count - needle.count) where bytes[start..<(start + needle.count)].elementsEqual(needle) {
            count += 1
        }
        return count
    }
}
