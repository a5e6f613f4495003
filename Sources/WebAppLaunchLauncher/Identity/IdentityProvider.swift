/// Something that can say who an access token belongs to: the insurer's identity provider.
///
/// The launcher asks it for every launch (through a short cache), so an implementation must
/// be safe to call concurrently and must bound its own waiting. It must distinguish a token
/// the provider refused (``IdentityProviderError/invalidToken``) from a provider that could
/// not answer (``IdentityProviderError/unavailable(reason:)``): the first is the caller's
/// problem, the second makes the launcher fail closed.
///
/// Two implementations ship: ``OpenIDUserInfoProvider`` (OpenID Connect discovery and the
/// userinfo endpoint) and ``IntrospectionProvider`` (RFC 7662).
public protocol IdentityProvider: Sendable {
    /// Asks the provider about an access token.
    /// - Parameter accessToken: The bearer token the app presented.
    /// - Returns: The identity the provider vouches for.
    /// - Throws: ``IdentityProviderError``.
    func identity(forAccessToken accessToken: String) async throws(IdentityProviderError) -> ProviderIdentity
    /// Whether the provider can confirm tokens now (its metadata loaded); see the default.
    /// - Returns: `true` when ready.
    func readiness() async -> Bool
}

extension IdentityProvider {
    /// Whether the provider can confirm tokens now: its discovery document or key set is
    /// loaded (a probe loads it when missing). The launcher's `/readyz` answers 503 while it
    /// is not. A provider with nothing to load (introspection, the development provider) is
    /// ready.
    /// - Returns: `true` when ready.
    public func readiness() async -> Bool { true }
}
