import WebAppRegistry

/// Why a message posted to the `AppInterface` bridge was refused.
///
/// The page is code the native app does not control, so every message is checked for shape,
/// type and size before anything acts on it. The code is stable and meant for programs; the
/// reason is a fixed sentence that never repeats what the page sent.
public struct BridgeMessageError: CodedError {
    /// A stable, machine-readable error code. New codes may be added; switch with a default.
    public struct Code: ErrorCode {
        /// The code's stable text.
        public let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }

        /// The body is not a dictionary, JSON text (`String`/`Data`) or JSON object.
        public static let unsupportedBody = Code(rawValue: "unsupported_body")
        /// The JSON text is longer than ``BridgeMessage/maximumJSONLength`` bytes.
        public static let jsonTooLarge = Code(rawValue: "json_too_large")
        /// The JSON text does not parse.
        public static let invalidJSON = Code(rawValue: "invalid_json")
        /// The object is neither exactly `{action, data}` nor exactly `{type, value}`,
        /// or its action is not a string.
        public static let invalidShape = Code(rawValue: "invalid_shape")
        /// The action is not `displayText`, `deeplink`, `height` or `openUrl`.
        public static let unknownAction = Code(rawValue: "unknown_action")
        /// The `data`/`value` field is missing.
        public static let missingData = Code(rawValue: "missing_data")
        /// The `data`/`value` field has the wrong type (e.g. a boolean as a height).
        public static let wrongType = Code(rawValue: "wrong_type")
        /// `displayText` is longer than ``BridgeMessage/maximumTextLength`` bytes.
        public static let textTooLong = Code(rawValue: "text_too_long")
        /// A URL is empty or longer than ``BridgeMessage/maximumURLLength`` bytes.
        public static let urlTooLong = Code(rawValue: "url_too_long")
        /// A height is NaN, infinite, negative or above ``BridgeMessage/maximumHeight``.
        public static let invalidHeight = Code(rawValue: "invalid_height")
        /// `openUrl` names a scheme other than `https`.
        public static let notHTTPS = Code(rawValue: "not_https")
        /// `openUrl` is not a well-formed `https` URL (userinfo, backslash, bad host, spaces…).
        public static let malformedURL = Code(rawValue: "malformed_url")
        /// An object in the JSON text names the same key twice (after unescaping, so
        /// `"\u0061ction"` repeats `"action"`). Parsers silently keep one of the two, so such
        /// a message could mean different things to different readers.
        public static let duplicateKey = Code(rawValue: "duplicate_key")
    }

    /// What went wrong, stable across releases.
    public let code: Code
    /// A human-readable explanation that never contains the page's data.
    public let reason: String

    /// Creates an error with a code and an explanation.
    /// - Parameters:
    ///   - code: The stable code.
    ///   - reason: A fixed sentence; do not put the page's data in it.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `code: reason`, safe to log.
}
