import WebAppRegistry

/// Why a deep link was refused.
///
/// A deep link moves the user inside the native app, so anything that is not plainly
/// on the registered app's allowlist is refused rather than repaired. The code is stable and
/// meant for programs (logs, metrics); the reason is a fixed sentence that never repeats the
/// link, which may come from an attacker.
public struct DeepLinkError: CodedError {
    /// A stable, machine-readable error code. New codes may be added; switch with a default.
    public struct Code: ErrorCode {
        /// The code's stable text.
        public let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }

        /// The link is empty or longer than ``DeepLink/maximumLength`` bytes.
        public static let tooLong = Code(rawValue: "too_long")
        /// The link has a space, a control character (raw or percent-encoded), a non-ASCII
        /// character, a backslash, or a character not allowed in its part.
        public static let forbiddenCharacter = Code(rawValue: "forbidden_character")
        /// The link is not `scheme://host[/path][?query]` (no `//`, empty host, empty path
        /// segment, bad percent escape, empty or malformed query parameter).
        public static let malformed = Code(rawValue: "malformed")
        /// The link has userinfo (`user@host`).
        public static let userinfo = Code(rawValue: "userinfo")
        /// The link has a port (`host:80`).
        public static let port = Code(rawValue: "port")
        /// The link has a fragment (`#…`), which the app's router has no use for.
        public static let fragment = Code(rawValue: "fragment")
        /// The path has a `.` or `..` segment.
        public static let dotSegment = Code(rawValue: "dot_segment")
        /// The path has a percent-encoded dot, slash or backslash (`%2e`, `%2f`, `%5c`).
        public static let encodedDotOrSlash = Code(rawValue: "encoded_dot_or_slash")
        /// The app that asked has no deep-link allowlist, so it may open no deep link.
        public static let noAllowlist = Code(rawValue: "no_allowlist")
        /// The scheme is not the allowlist's scheme.
        public static let schemeNotAllowed = Code(rawValue: "scheme_not_allowed")
        /// The host is not on the allowlist.
        public static let hostNotAllowed = Code(rawValue: "host_not_allowed")
        /// The path is not under any allowed path prefix.
        public static let pathNotAllowed = Code(rawValue: "path_not_allowed")
        /// A query parameter name is not on the allowlist.
        public static let queryKeyNotAllowed = Code(rawValue: "query_key_not_allowed")
        /// A query parameter appears twice, which routers resolve inconsistently.
        public static let repeatedQueryKey = Code(rawValue: "repeated_query_key")
    }

    /// What went wrong, stable across releases.
    public let code: Code
    /// A human-readable explanation that never contains the refused link.
    public let reason: String

    /// Creates an error with a code and an explanation.
    /// - Parameters:
    ///   - code: The stable code.
    ///   - reason: A fixed sentence; do not put the refused input in it.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `code: reason`, safe to log.
}
