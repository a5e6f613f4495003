import WebAppRegistry

/// Why a launch could not be minted or was rejected.
///
/// One public error type for the whole handshake. The ``code`` is stable and is what a
/// program (or a log line, or a metric) should use; the ``reason`` is a sentence for the
/// developer. Neither ever contains the token, a claim, a MAC or a key: an error is logged
/// and printed, so it must be safe to log and print.
public struct LaunchError: CodedError {
    /// A stable, machine-readable error code. New codes may be added; switch with a default.
    public struct Code: ErrorCode {
        /// The code's stable text.
        public let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }

        /// The token or its request is not of the documented shape (bad base64url, bad
        /// lengths, missing or repeated `launch`).
        public static let malformed = Code(rawValue: "malformed")
        /// The token is longer than the configured limit; rejected before any MAC work.
        public static let tooLarge = Code(rawValue: "too_large")
        /// The format version is not one this verifier knows.
        public static let unsupportedVersion = Code(rawValue: "unsupported_version")
        /// The mode byte is neither signed nor sealed.
        public static let unsupportedMode = Code(rawValue: "unsupported_mode")
        /// The token's key id is not in the keyring. Never replaced by a default key.
        public static let unknownKey = Code(rawValue: "unknown_key")
        /// The token's key id is in the keyring but revoked.
        public static let revokedKey = Code(rawValue: "revoked_key")
        /// The MAC does not match: the token was altered or made with another key.
        public static let badSignature = Code(rawValue: "bad_signature")
        /// `now` is past the expiry plus the allowed skew.
        public static let expired = Code(rawValue: "expired")
        /// `now` is before the issue time minus the allowed skew.
        public static let notYetValid = Code(rawValue: "not_yet_valid")
        /// The expiry is not after the issue time.
        public static let invalidLifetime = Code(rawValue: "invalid_lifetime")
        /// The token lives longer than the maximum TTL allows.
        public static let lifetimeTooLong = Code(rawValue: "lifetime_too_long")
        /// The token was minted for another registered URL.
        public static let wrongAudience = Code(rawValue: "wrong_audience")
        /// The token was minted for another app id.
        public static let wrongApp = Code(rawValue: "wrong_app")
        /// The request carries query or form parameters the registered URL does not.
        public static let unexpectedParameters = Code(rawValue: "unexpected_parameters")
        /// A claim is invalid: a bad KVNR, a non-NFC or oversize name, an undecryptable body.
        public static let invalidClaims = Code(rawValue: "invalid_claims")
        /// The nonce was already claimed: the launch was used before.
        public static let alreadyUsed = Code(rawValue: "already_used")
        /// The replay store could not answer; the launch is rejected (fail closed).
        public static let replayStoreUnavailable = Code(rawValue: "replay_store_unavailable")
        /// The signer was asked for an app that is not registered.
        public static let unknownApp = Code(rawValue: "unknown_app")
        /// The keyring has no active key to sign with.
        public static let noSigningKey = Code(rawValue: "no_signing_key")
        /// OpenSSL failed; ``LaunchError/openSSLCode`` carries its error code.
        public static let cryptoFailure = Code(rawValue: "crypto_failure")
    }

    /// The generic reason a client (browser, user) may be shown. Only these exist, so a
    /// rejection page never tells an attacker which check failed.
    public enum PublicReason: String, Sendable {
        /// The launch is not valid.
        case invalid
        /// The launch is too old (or from the future).
        case expired
        /// The launch was used before.
        case alreadyUsed = "already_used"
        /// The request carried neither a launch nor a live session: a plain visit, not a broken
        /// link. Never the reason of a ``LaunchError``; the verifying middleware gives it, so a
        /// tester who opens the app's URL directly is told to start from the app instead of
        /// reading "not valid" as a broken setup.
        case noSession = "no_session"
    }

    /// What went wrong, stable across releases.
    public let code: Code
    /// A developer-facing sentence. Never contains token bytes, claims or keys.
    public let reason: String
    /// OpenSSL's packed error code, for ``Code/cryptoFailure``.
    public let openSSLCode: UInt?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The stable code.
    ///   - reason: A sentence that contains nothing secret or personal.
    ///   - openSSLCode: OpenSSL's error code, when OpenSSL failed.
    public init(_ code: Code, _ reason: String, openSSLCode: UInt? = nil) {
        self.code = code
        self.reason = reason
        self.openSSLCode = openSSLCode
    }

    /// The reason safe to show to the client: `expired` for time failures, `already_used` for
    /// replays, `invalid` for everything else.
    public var publicReason: PublicReason {
        switch code {
        case .expired, .notYetValid: .expired
        case .alreadyUsed: .alreadyUsed
        default: .invalid
        }
    }

    public var description: String {
        if let openSSLCode { return "\(code): \(reason) (OpenSSL error \(openSSLCode))" }
        return "\(code): \(reason)"
    }
}
