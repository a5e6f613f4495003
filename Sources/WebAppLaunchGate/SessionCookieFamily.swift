import HTTPTypes
import WebAppLaunchMiddleware

/// Every session cookie of ours, of any app: `webapp_launch_session` (plain http) and
/// `__Host-webapp_launch_session_<app>` (https), names compared case-insensitively.
///
/// None of them may reach an upstream: each holds a sealed session with the user's identity
/// (and, when kept, the access token). On a shared origin the browser sends every app's
/// `__Host-` cookie to every path, so removing only this gate's own name would hand another
/// app's session to this app. The gate removes the family from every `Cookie` field; the
/// nginx configuration it prints removes the same family (``NginxConfiguration``), up to
/// ``nginxPasses`` occurrences, and `/auth` refuses a request carrying more.
public enum SessionCookieFamily {
    /// The plain-http name (loopback development).
    public static var plainName: String { SessionCookieName.plain }
    /// The prefix of the https names (one per app id).
    public static var hostPrefix: String { SessionCookieName.hostPrefix }
    /// How many occurrences the nginx configuration's maps remove; `/auth` refuses more.
    public static let nginxPasses = 4

    /// Whether a cookie name is one of ours.
    /// - Parameter name: A cookie name as sent (surrounding blanks already removed).
    /// - Returns: `true` for the plain name and any `__Host-webapp_launch_session_…`.
    public static func contains(_ name: Substring) -> Bool {
        let lowered = name.lowercased()
        return lowered == plainName.lowercased() || lowered.hasPrefix(hostPrefix.lowercased())
    }

    /// A `Cookie` value without any cookie of the family; `nil` when nothing is left.
    /// - Parameter value: A `Cookie` field value (`a=1; b=2`).
    /// - Returns: The remaining pairs joined by `; `, or `nil`.
    public static func removing(from value: String) -> String? {
        let pairs = value.split(separator: ";").compactMap { piece -> Substring? in
            let pair = piece.drop { $0 == " " || $0 == "\t" }
            if contains(name(of: pair)) { return nil }
            return pair.isEmpty ? nil : pair
        }
        return pairs.isEmpty ? nil : pairs.joined(separator: "; ")
    }

    /// How many cookies of the family a request's `Cookie` fields carry.
    /// - Parameter fields: The request's fields.
    /// - Returns: The count over every `Cookie` field.
    public static func count(in fields: HTTPFields) -> Int {
        fields[values: .cookie].reduce(0) { total, value in
            total + value.split(separator: ";").filter { contains(name(of: $0.drop { $0 == " " || $0 == "\t" })) }.count
        }
    }

    private static func name(of pair: Substring) -> Substring {
        var name = pair.prefix { $0 != "=" }
        while let last = name.last, last == " " || last == "\t" { name = name.dropLast() }
        return name
    }
}
