/// Something that exchanges the native app's access token for one issued to a partner: the
/// token the partner's launch carries.
///
/// An implementation must never hand back the token it was given, and must distinguish
/// nothing finer than "exchanged" and "failed": any failure stops the launch (503, fail
/// closed), because a launch without the partner's token, or with the wrong one, is not what
/// the registry promised the partner.
public protocol TokenExchanger: Sendable {
    /// Exchanges a token.
    /// - Parameters:
    ///   - subjectToken: The native app's access token (already confirmed).
    ///   - audience: The partner's audience, from its registry entry.
    ///   - scopes: The scopes the partner's token should carry, from its registry entry.
    /// - Returns: The partner's access token.
    /// - Throws: ``TokenExchangeError``.
    func exchange(subjectToken: String, audience: String, scopes: [String]) async throws(TokenExchangeError) -> String
}

/// Why a token exchange produced no token. The reason is for the log and holds no token.
public struct TokenExchangeError: Error, Sendable, Hashable {
    /// A sentence for the log.
    public let reason: String
    /// The provider's `Retry-After` (408, 429, 5xx), in seconds, passed on to the app.
    public let retryAfterSeconds: Int?

    /// Creates an error.
    public init(_ reason: String, retryAfterSeconds: Int? = nil) {
        self.reason = reason
        self.retryAfterSeconds = retryAfterSeconds
    }
}
