/// A setting that cannot work or would be unsafe: every entry point (`serve`, `gate`,
/// `launcher`, the libraries behind them) refuses to start with it, and the CLI prints its
/// description as one line and exits 2.
///
/// One type for every entry point, so a rule shared between them (development keys off
/// loopback, a redirect target, an insecure provider URL) is refused with the same code
/// wherever it is broken. The reason may name the setting and echo non-secret input (a
/// host, a path); never a secret.
public struct ConfigurationError: CodedError {
    /// A stable, machine-readable error code.
    public struct Code: ErrorCode {
        /// The code's stable text.
        public let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }

        /// A setting is out of range or malformed.
        public static let invalidSetting = Code(rawValue: "invalid_setting")
        /// Development keys (public, from the repository) for a non-loopback address, public
        /// URL or registry entry (``DevelopmentKeyPolicy`` in `WebAppLaunch`).
        public static let developmentKeys = Code(rawValue: "development_keys_off_loopback")
        /// A redirect target that could leave the site (``RedirectTarget``).
        public static let invalidRedirect = Code(rawValue: "invalid_redirect")
    }

    /// What went wrong.
    public let code: Code
    /// One sentence naming the bad setting; never a secret.
    public let reason: String

    /// Creates an error with a code.
    /// - Parameters:
    ///   - code: The code.
    ///   - reason: One sentence.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// Creates an ``Code/invalidSetting`` error.
    /// - Parameter reason: One sentence naming the setting.
    public init(_ reason: String) {
        self.init(.invalidSetting, reason)
    }
}
