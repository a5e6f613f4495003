import WebAppLaunchMiddleware

/// Every session cookie of ours, of any app: `webapp_launch_session` (plain http) and
/// `__Host-webapp_launch_session_<app>` (https), names compared case-insensitively.
///
/// None of them may reach an upstream: each holds a sealed session with the user's identity
/// (and, when kept, the access token). On a shared origin the browser sends every app's
/// `__Host-` cookie to every path, so removing only this gate's own name would hand another
/// app's session to this app. The gate removes the family from every `Cookie` field, in both
/// shapes: as the reverse proxy, and as nginx's `/auth`, which answers with the app's cookies
/// for nginx to send (``NginxConfiguration/appCookies``). A configuration printed by an
/// earlier version removed the family itself, at most ``nginxPasses`` occurrences, and may
/// still be in use after an upgrade: `/auth` refuses a request carrying more.
public enum SessionCookieFamily {
    /// The plain-http name (loopback development).
    public static var plainName: String { SessionCookieName.plain }
    /// The prefix of the https names (one per app id).
    public static var hostPrefix: String { SessionCookieName.hostPrefix }
    /// How many occurrences the `map`s of a configuration printed by an earlier version
    /// remove; `/auth` refuses a request carrying more, so such a configuration, kept after an
    /// upgrade, never passes one on (the one printed now takes the app's cookies from `/auth`).
    public static let nginxPasses = 4

    /// Whether a cookie name is one of ours.
    /// - Parameter name: A cookie name as sent (surrounding blanks already removed).
    /// - Returns: `true` for the plain name and any `__Host-webapp_launch_session_…`, in any
    ///   case (ASCII folding, byte by byte: this runs on every proxied request).
    public static func contains(_ name: Substring) -> Bool {
        let bytes = name.utf8
        return equalIgnoringASCIICase(bytes, plainName.utf8)
            || (bytes.count >= hostPrefix.utf8.count && equalIgnoringASCIICase(bytes.prefix(hostPrefix.utf8.count), hostPrefix.utf8))
    }

    /// A `Cookie` value without any cookie of the family; `nil` when nothing is left.
    /// - Parameter value: A `Cookie` field value (`a=1; b=2`).
    /// - Returns: The remaining pairs joined by `; `, or `nil`; the value itself (no copy)
    ///   when it holds none of ours.
    public static func removing(from value: String) -> String? {
        separating(value).kept
    }

    /// A `Cookie` value taken apart: what ``removing(from:)`` leaves, and how many cookies of
    /// the family it removed.
    /// - Parameter value: A `Cookie` field value.
    /// - Returns: The remaining pairs (or `nil`) and the count of ours.
    static func separating(_ value: String) -> (kept: String?, removed: Int) {
        // The pairs as the verifier reads them (``CookiePairs``): a pair the session lookup
        // can see is a pair removed here.
        var kept: [Substring] = []
        var removed = 0
        for pair in CookiePairs(value) {
            if contains(trimmed(pair.name)) { removed += 1 } else { kept.append(pair.text) }
        }
        if kept.isEmpty { return (nil, removed) }
        return (removed > 0 ? kept.joined(separator: "; ") : value, removed)
    }

    /// A name without trailing blanks: `webapp_launch_session =…` is ours too (removed),
    /// though no verifier would open it.
    private static func trimmed(_ name: Substring) -> Substring {
        var name = name
        while let last = name.utf8.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { name = name.dropLast() }
        return name
    }

    private static func equalIgnoringASCIICase(_ bytes: some Collection<UInt8>, _ lowercase: some Collection<UInt8>) -> Bool {
        bytes.count == lowercase.count && zip(bytes, lowercase).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
