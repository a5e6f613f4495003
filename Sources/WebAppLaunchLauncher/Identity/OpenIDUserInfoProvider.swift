import AsyncHTTPClient
import Foundation
import NIOHTTP1

/// Confirms an access token with the OpenID Connect userinfo endpoint.
///
/// issuer → `/.well-known/openid-configuration` (cached) → `userinfo_endpoint`, asked with
/// `Authorization: Bearer`. A 2xx JSON object with a `sub` is the user's claims; 401, or
/// 400/403 with `error="invalid_token"`, means the provider refused the token; anything else
/// (another 4xx, 5xx, a redirect, a timeout, a body that is not a JSON object) means the
/// launcher cannot tell, and it fails closed (see ``ProviderAnswerMeaning``).
///
/// Userinfo cannot say which client a token was issued to, nor for which audience: in this
/// mode the launcher cannot refuse a token the provider issued to someone else (a partner's
/// exchanged token included). Production deployments use ``IntrospectionProvider`` or
/// ``JWTAccessTokenProvider``, which can.
///
/// Userinfo reports neither scopes nor expiry, so ``ProviderIdentity/scopes`` and
/// ``ProviderIdentity/expiresAt`` are `nil`; use ``IntrospectionProvider`` when scopes must
/// be enforced.
public struct OpenIDUserInfoProvider: IdentityProvider {
    private let discovery: OpenIDDiscovery
    private let http: ProviderHTTP

    /// Creates a provider.
    /// - Parameters:
    ///   - issuer: The issuer URL (https, or http on loopback; see ``IssuerURL``).
    ///   - httpClient: A client that does not follow redirects (``IdentityProviderHTTPClient/make(connectTimeout:)``).
    ///   - timeout: The longest one request to the provider may take.
    ///   - discoveryLifetime: How long the discovery document is reused.
    public init(issuer: URL, httpClient: HTTPClient, timeout: Duration = .seconds(5), discoveryLifetime: Duration = .seconds(3600)) {
        http = ProviderHTTP(client: httpClient, timeout: timeout)
        discovery = OpenIDDiscovery(issuer: issuer, http: http, lifetime: discoveryLifetime)
    }

    /// The provider's discovery document (cached).
    /// - Returns: The configuration the provider states.
    /// - Throws: ``IdentityProviderError/unavailable(reason:)``.
    public func configuration() async throws(IdentityProviderError) -> OpenIDConfiguration {
        try await discovery.configuration()
    }

    /// Ready once the discovery document is loaded (fetched now if it is not cached).
    /// - Returns: Whether the provider's userinfo endpoint is known.
    public func readiness() async -> Bool {
        (try? await discovery.configuration()) != nil
    }

    public func identity(forAccessToken accessToken: String) async throws(IdentityProviderError) -> ProviderIdentity {
        let configuration = try await discovery.configuration()
        var request = HTTPClientRequest(url: configuration.userInfoEndpoint.absoluteString)
        request.headers.add(name: "Authorization", value: "Bearer " + accessToken)
        request.headers.add(name: "Accept", value: "application/json")
        let answer: ProviderHTTP.Answer
        do {
            answer = try await http.send(request)
        } catch {
            // The endpoint may have moved; fetch the document again next time.
            discovery.forget()
            throw error
        }
        switch ProviderAnswerMeaning.of(status: answer.status, headers: answer.headers, object: answer.object, endpoint: "userinfo") {
        case .answered:
            guard let object = answer.object else {
                throw .unavailable(reason: "the userinfo answer is not a JSON object")
            }
            guard let identity = ProviderIdentity.from(json: object, scopes: nil, expiresAt: nil) else {
                throw .noSubject
            }
            return identity
        case .refusedToken:
            throw .invalidToken
        case .unavailable(let reason, let retryAfter):
            throw .unavailable(reason: reason, retryAfterSeconds: retryAfter)
        }
    }
}
