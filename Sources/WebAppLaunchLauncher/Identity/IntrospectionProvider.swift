import AsyncHTTPClient
import Foundation
import NIOHTTP1

/// Confirms an access token with OAuth 2.0 Token Introspection (RFC 7662).
///
/// The launcher authenticates itself with client credentials (HTTP Basic, as RFC 6749
/// section 2.3.1 encodes them) and posts `token=…&token_type_hint=access_token`. A token is
/// accepted only when the answer says all of: `"active": true`; `token_type` an access
/// token (a refresh token is refused); `client_id` one of the native app's
/// (``NativeAppTokenPolicy``); `aud`, when present, naming the launcher; `exp` present and in
/// the future; a `sub`. Anything else is a refused token. A 4xx here means the *launcher's*
/// credentials were refused, not the user's token, so it counts as the provider being
/// unavailable (408, 429 and 5xx pass their `Retry-After` on): the launcher fails closed and
/// the operator sees it in the log.
///
/// The names and KVNR are taken from the introspection answer's claims; providers that put
/// user claims there (Keycloak, for one) need nothing else.
public struct IntrospectionProvider: IdentityProvider {
    private let endpoint: URL
    private let clientID: String
    private let clientSecret: String
    private let policy: NativeAppTokenPolicy
    private let http: ProviderHTTP
    private let now: @Sendable () -> Date

    /// Creates a provider.
    /// - Parameters:
    ///   - endpoint: The introspection endpoint (https, or http on loopback).
    ///   - clientID: The launcher's client id at the provider.
    ///   - clientSecret: The launcher's client secret (never logged).
    ///   - policy: Which tokens are the native app's, for the launcher.
    ///   - httpClient: A client that does not follow redirects.
    ///   - timeout: The longest one request may take.
    ///   - now: The clock for `exp` checks (injectable for tests).
    public init(
        endpoint: URL,
        clientID: String,
        clientSecret: String,
        policy: NativeAppTokenPolicy,
        httpClient: HTTPClient,
        timeout: Duration = .seconds(5),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.endpoint = endpoint
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.policy = policy
        self.http = ProviderHTTP(client: httpClient, timeout: timeout)
        self.now = now
    }

    public func identity(forAccessToken accessToken: String) async throws(IdentityProviderError) -> ProviderIdentity {
        var request = HTTPClientRequest(url: endpoint.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "Authorization", value: "Basic " + Self.basicCredentials(clientID, clientSecret))
        request.body = .bytes(Array(("token=" + Self.formEncoded(accessToken) + "&token_type_hint=access_token").utf8))
        let answer = try await http.send(request)
        guard answer.status == 200 else {
            let retryAfter = [408, 429].contains(answer.status) || answer.status >= 500 ? ProviderAnswerMeaning.retryAfter(answer.headers) : nil
            throw .unavailable(reason: "introspection answered with status \(answer.status)", retryAfterSeconds: retryAfter)
        }
        guard let object = answer.object else {
            throw .unavailable(reason: "the introspection answer is not a JSON object")
        }
        guard object["active"] as? Bool == true else { throw .invalidToken }
        guard NativeAppTokenPolicy.isAccessTokenType(object["token_type"]) else { throw .invalidToken }
        guard policy.admits(clientID: object["client_id"]) else { throw .invalidToken }
        if object["aud"] != nil, !policy.admits(audienceClaim: object["aud"]) { throw .invalidToken }
        guard let exp = object["exp"] as? NSNumber else { throw .invalidToken }
        let expiresAt = Date(timeIntervalSince1970: exp.doubleValue)
        guard expiresAt > now() else { throw .invalidToken }
        let scopes = (object["scope"] as? String).map { Set($0.split(separator: " ").map(String.init)) } ?? []
        guard let identity = ProviderIdentity.from(json: object, scopes: scopes, expiresAt: expiresAt) else {
            throw .noSubject
        }
        return identity
    }

    /// `client_id:client_secret`, each form-encoded first (RFC 6749, section 2.3.1), in base64.
    static func basicCredentials(_ id: String, _ secret: String) -> String {
        Data((formEncoded(id) + ":" + formEncoded(secret)).utf8).base64EncodedString()
    }

    /// `application/x-www-form-urlencoded` encoding of one value.
    static func formEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"))
        allowed.insert(charactersIn: "-._*")
        return (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "").replacingOccurrences(of: "%20", with: "+")
    }
}
