import WebAppRegistry

/// Why the launcher did not mint: one error type, with a stable code, mapped to an HTTP
/// status only at the edge (``LauncherError/httpStatus``).
///
/// The reason is for the log and never holds the token, a name or a KVNR; a client sees
/// only the code.
public struct LauncherError: CodedError {
    /// A stable, machine-readable code. New codes may be added; switch with a default.
    public struct Code: ErrorCode {
        /// The code's stable text (also the `error` member of the launcher's JSON answers).
        public let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }

        /// No `Authorization: Bearer` credentials (401, RFC 6750 section 3.1: no error code).
        public static let missingToken = Code(rawValue: "missing_token")
        /// The provider refused the token: unknown, expired or revoked (401 `invalid_token`).
        public static let invalidToken = Code(rawValue: "invalid_token")
        /// The token lacks a required scope (403 `insufficient_scope`).
        public static let insufficientScope = Code(rawValue: "insufficient_scope")
        /// The provider's answer lacks a name or KVNR claim, or a subject (403).
        public static let missingClaims = Code(rawValue: "missing_claims")
        /// A claim is present but unusable: a bad KVNR check digit, an oversize name (403).
        public static let invalidClaims = Code(rawValue: "invalid_claims")
        /// No app is registered with the requested id (404).
        public static let unknownApp = Code(rawValue: "unknown_app")
        /// The body is not `{"app": "ID"}` exactly (422).
        public static let invalidRequest = Code(rawValue: "invalid_request")
        /// The body is larger than the launcher reads (413).
        public static let requestTooLarge = Code(rawValue: "request_too_large")
        /// The body is not declared as JSON (415).
        public static let unsupportedMediaType = Code(rawValue: "unsupported_media_type")
        /// The subject minted too many launches recently (429, with `Retry-After`).
        public static let rateLimited = Code(rawValue: "rate_limited")
        /// The identity provider could not answer; nothing is minted (503).
        public static let providerUnavailable = Code(rawValue: "provider_unavailable")
        /// The app's token could not be exchanged for the partner's (RFC 8693): the provider
        /// refused, failed or did not answer in time; nothing is minted (503).
        public static let tokenExchangeFailed = Code(rawValue: "token_exchange_failed")
        /// Minting itself failed (no signing key, OpenSSL) (500).
        public static let mintFailed = Code(rawValue: "mint_failed")
    }

    /// What went wrong, stable across releases.
    public let code: Code
    /// A sentence for the log; nothing secret or personal.
    public let reason: String
    /// For ``Code/rateLimited``, and for ``Code/providerUnavailable`` and
    /// ``Code/tokenExchangeFailed`` when the provider said: whole seconds until a retry may
    /// succeed (`Retry-After`).
    public let retryAfterSeconds: Int?

    /// Creates an error.
    public init(_ code: Code, _ reason: String, retryAfterSeconds: Int? = nil) {
        self.code = code
        self.reason = reason
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// The HTTP status for the code: the one place the mapping lives.
    public var httpStatus: Int {
        switch code {
        case .missingToken, .invalidToken: 401
        case .insufficientScope, .missingClaims, .invalidClaims: 403
        case .unknownApp: 404
        case .requestTooLarge: 413
        case .unsupportedMediaType: 415
        case .invalidRequest: 422
        case .rateLimited: 429
        case .providerUnavailable, .tokenExchangeFailed: 503
        default: 500
        }
    }

    /// The `WWW-Authenticate` challenge RFC 6750 prescribes for the code, if any.
    public var bearerChallenge: String? {
        switch code {
        case .missingToken: #"Bearer realm="webapp-launch""#
        case .invalidToken: #"Bearer error="invalid_token""#
        case .insufficientScope: #"Bearer error="insufficient_scope""#
        default: nil
        }
    }
}
