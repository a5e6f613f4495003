import WebAppRegistry

/// Why a plugin link (`navidapro://plugin/webapp?registeredURL=…`) was refused.
///
/// The web-app plugin sends the user's token and KVNR to the URL it opens, so a link that
/// does not name a registered app exactly is refused. The code is stable and meant for
/// programs; the reason is a fixed sentence that never repeats the link.
public struct PluginLinkError: CodedError {
    /// A stable, machine-readable error code. New codes may be added; switch with a default.
    public struct Code: ErrorCode {
        /// The code's stable text.
        public let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }

        /// The link itself breaks the deep-link syntax rules (see ``DeepLink``): too long,
        /// control characters, userinfo, port, fragment, dot segments, bad escapes.
        public static let malformedLink = Code(rawValue: "malformed_link")
        /// The link is not `navidapro://plugin/webapp`.
        public static let notPluginLink = Code(rawValue: "not_plugin_link")
        /// The link has no `registeredURL` parameter.
        public static let missingRegisteredURL = Code(rawValue: "missing_registered_url")
        /// The link has `registeredURL` more than once; which one wins differs between parsers.
        public static let repeatedRegisteredURL = Code(rawValue: "repeated_registered_url")
        /// The link has a parameter other than `registeredURL`.
        public static let unexpectedParameter = Code(rawValue: "unexpected_parameter")
        /// The value still contains a percent escape after decoding once.
        public static let doubleEncoded = Code(rawValue: "double_encoded")
        /// The value is not a valid registered URL (see `RegisteredURL`): userinfo, other
        /// schemes, plain http off loopback, encoded dots, fragments.
        public static let invalidRegisteredURL = Code(rawValue: "invalid_registered_url")
        /// The URL is well formed but no app is registered at exactly that origin and path.
        public static let notRegistered = Code(rawValue: "not_registered")
    }

    /// What went wrong, stable across releases.
    public let code: Code
    /// A human-readable explanation that never contains the link.
    public let reason: String

    /// Creates an error with a code and an explanation.
    /// - Parameters:
    ///   - code: The stable code.
    ///   - reason: A fixed sentence; do not put the link in it.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `code: reason`, safe to log.
}
