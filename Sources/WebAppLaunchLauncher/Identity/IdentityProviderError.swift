/// Why the identity provider did not vouch for an access token.
///
/// Only two outcomes matter to the launcher, and they must never be confused: a token the
/// provider refused (the caller gets 401) and a provider that could not answer (503: the
/// launcher fails closed and never mints on a guess). The reason is for logs and holds no
/// token or claim.
public enum IdentityProviderError: Error, Sendable, Hashable {
    /// The provider says the token is not (or no longer) valid: unknown, expired, revoked.
    case invalidToken
    /// The provider answered for a token that names no user (no `sub`).
    case noSubject
    /// The provider could not be asked or gave no usable answer: connection refused,
    /// timeout, 5xx, a redirect, malformed JSON, a discovery document for another issuer.
    case unavailable(reason: String)
    /// The provider said it cannot answer now (408, 429 or 5xx) and when to try again
    /// (`Retry-After`, in seconds): unavailable, with the hint passed on to the app.
    case throttled(reason: String, retryAfterSeconds: Int)

    /// Builds the "unavailable" error for a classified answer.
    static func unavailable(reason: String, retryAfterSeconds: Int?) -> IdentityProviderError {
        retryAfterSeconds.map { .throttled(reason: reason, retryAfterSeconds: $0) } ?? .unavailable(reason: reason)
    }
}
