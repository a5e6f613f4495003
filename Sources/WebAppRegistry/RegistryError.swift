/// Why a registry, a registered URL or a deep-link allowlist was refused.
///
/// The code is stable and meant for programs; the reason is a sentence for people and
/// never contains anything secret (a registry holds nothing secret).
public struct RegistryError: CodedError {
    /// A stable, machine-readable error code. New codes may be added; switch with a default.
    public struct Code: ErrorCode {
        /// The code's stable text.
        public let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }

        /// The registry file could not be read.
        public static let unreadableFile = Code(rawValue: "unreadable_file")
        /// The registry file may be changed by group or others, who could then choose where
        /// launches (and the identities in them) go.
        public static let insecurePermissions = Code(rawValue: "insecure_permissions")
        /// The registry is not valid JSON of the documented shape.
        public static let invalidJSON = Code(rawValue: "invalid_json")
        /// A registered URL is not acceptable (see ``RegisteredURL``).
        public static let invalidURL = Code(rawValue: "invalid_url")
        /// An app id is empty, too long or uses characters outside `[A-Za-z0-9._-]`.
        public static let invalidAppID = Code(rawValue: "invalid_app_id")
        /// Two apps share an id or a registered URL.
        public static let duplicateApp = Code(rawValue: "duplicate_app")
        /// A deep-link allowlist is malformed.
        public static let invalidAllowlist = Code(rawValue: "invalid_allowlist")
        /// A card's icon URL is not https (or http on loopback).
        public static let invalidIconURL = Code(rawValue: "invalid_icon_url")
        /// A card's category is empty, too long or holds control characters.
        public static let invalidCategory = Code(rawValue: "invalid_category")
        /// No app is registered under the id or URL asked for.
        public static let unknownApp = Code(rawValue: "unknown_app")
    }

    /// What went wrong, stable across releases.
    public let code: Code
    /// A human-readable explanation.
    public let reason: String

    /// Creates an error with a code and an explanation.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

}
