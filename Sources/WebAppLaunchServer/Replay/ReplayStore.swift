import WebAppLaunch

/// Where the server remembers which launches were used: the replay half of verification.
///
/// A store's one promise: of any number of concurrent claims of the same id, exactly one
/// returns `true`. A store that cannot answer throws, and the server rejects the launch
/// with 503: it never accepts a launch it could not record.
public protocol ReplayStore: Sendable {
    /// Claims a launch's replay id until a deadline.
    ///
    /// - Parameters:
    ///   - id: The launch's ``ReplayID`` (a keyed hash of its nonce).
    ///   - deadline: Seconds since 1970 until which the id must be remembered (`exp + skew`).
    ///   - now: The current time in seconds since 1970, used to sweep expired ids.
    /// - Returns: `true` when this call claimed the id, `false` when it was claimed before.
    /// - Throws: When the store cannot answer; callers must reject the launch.
    func claim(_ id: ReplayID, until deadline: UInt64, now: UInt64) async throws -> Bool

    /// How many ids the store currently holds (for the replay-store-size metric).
    func count() async throws -> Int
}

/// Why a replay store could not answer.
public struct ReplayStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable code.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        /// Creates a code.
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

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
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }
}
