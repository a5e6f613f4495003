import WebAppRegistry

/// Why a keyring could not be loaded, saved or used.
public struct KeyringError: CodedError {
    /// A stable, machine-readable error code.
    public struct Code: ErrorCode {
        /// The code's stable text.
        public let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }

        /// The file does not exist.
        public static let missingFile = Code(rawValue: "missing_file")
        /// The file exists but could not be read or written.
        public static let unreadableFile = Code(rawValue: "unreadable_file")
        /// The file is not JSON of the documented shape.
        public static let invalidJSON = Code(rawValue: "invalid_json")
        /// A secret is not base64url or not 32 to 128 bytes long.
        public static let invalidSecret = Code(rawValue: "invalid_secret")
        /// A kid is empty, too long or outside `[A-Za-z0-9._-]`.
        public static let invalidKeyID = Code(rawValue: "invalid_kid")
        /// Two keys share a kid.
        public static let duplicateKeyID = Code(rawValue: "duplicate_kid")
        /// A production keyring file is readable or writable by group or others.
        public static let insecurePermissions = Code(rawValue: "insecure_permissions")
        /// The keyring holds no key.
        public static let empty = Code(rawValue: "empty_keyring")
        /// No key has the kid asked for.
        public static let unknownKeyID = Code(rawValue: "unknown_kid")
        /// An app keyring was asked to serve (verify or seal sessions for) another app.
        public static let appMismatch = Code(rawValue: "app_mismatch")
        /// An app keyring was given where a launcher keyring (root secrets) is needed: to
        /// mint, to export app keys or to add a key.
        public static let notLauncherKeyring = Code(rawValue: "not_launcher_keyring")
        /// An app id is empty, too long or outside `[A-Za-z0-9._-]`.
        public static let invalidAppID = Code(rawValue: "invalid_app_id")
        /// The destination file exists and may not be replaced.
        public static let fileExists = Code(rawValue: "file_exists")
        /// OpenSSL failed while deriving keys.
        public static let cryptoFailure = Code(rawValue: "crypto_failure")
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for people; never contains secret bytes.
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

}
