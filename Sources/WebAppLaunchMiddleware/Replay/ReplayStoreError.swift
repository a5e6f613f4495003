import WebAppRegistry

/// Why a replay store could not answer. Every store throws this one type, so the same
/// failure reads the same whichever driver is configured.
public struct ReplayStoreError: CodedError {
    /// A stable code.
    public struct Code: ErrorCode {
        /// The code's stable text.
        public let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }

        /// The in-memory store is full of live ids; accepting more would mean forgetting some.
        public static let full = Code(rawValue: "full")
        /// The database could not be opened, queried, or answered too late.
        public static let unavailable = Code(rawValue: "unavailable")
        /// The configuration names an unknown or malformed store.
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for the log; never a password or connection secret.
    public let reason: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: The stable code.
    ///   - reason: A sentence for the log, free of secrets.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

}
