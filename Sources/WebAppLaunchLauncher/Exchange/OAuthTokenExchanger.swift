import AsyncHTTPClient
import Foundation
import NIOHTTP1

/// RFC 8693 token exchange at the identity provider's token endpoint.
///
/// The launcher authenticates as its own client (HTTP Basic) and posts
/// `grant_type=urn:ietf:params:oauth:grant-type:token-exchange` with the app's token as
/// `subject_token` (type `access_token`), the partner's `audience` and `scope`, and asks for an
/// access token. Only a 200 with an `access_token` that differs from the subject token, of an
/// access-token type when the provider names one, is an exchanged token; anything else (a
/// refusal, 4xx, 5xx, a timeout, a body that never ends) is a failure: the launch is not
/// minted. 408, 429 and 5xx pass their `Retry-After` on.
public struct OAuthTokenExchanger: TokenExchanger {
    /// RFC 8693 section 2.1's grant type.
    static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    /// RFC 8693 section 3's type of an access token.
    static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"
    /// The longest exchanged token carried in a launch (the launch's own limit).
    static let maximumTokenBytes = 8192

    private let endpoint: URL
    private let clientID: String
    private let clientSecret: String
    private let http: ProviderHTTP

    /// Creates an exchanger.
    /// - Parameters:
    ///   - tokenEndpoint: The provider's token endpoint (https, or http on loopback).
    ///   - clientID: The launcher's own client id at the provider.
    ///   - clientSecret: The launcher's client secret (never logged).
    ///   - httpClient: A client that does not follow redirects.
    ///   - timeout: The longest one exchange may take, body included.
    public init(tokenEndpoint: URL, clientID: String, clientSecret: String, httpClient: HTTPClient, timeout: Duration = .seconds(5)) {
        self.endpoint = tokenEndpoint
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.http = ProviderHTTP(client: httpClient, timeout: timeout)
    }

    public func exchange(subjectToken: String, audience: String, scopes: [String]) async throws(TokenExchangeError) -> String {
        var form = [
            ("grant_type", Self.grantType),
            ("subject_token", subjectToken),
            ("subject_token_type", Self.accessTokenType),
            ("requested_token_type", Self.accessTokenType),
            ("audience", audience),
        ]
        if !scopes.isEmpty { form.append(("scope", scopes.joined(separator: " "))) }
        var request = HTTPClientRequest(url: endpoint.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "Authorization", value: "Basic " + IntrospectionProvider.basicCredentials(clientID, clientSecret))
        request.body = .bytes(Array(form.map { $0.0 + "=" + IntrospectionProvider.formEncoded($0.1) }.joined(separator: "&").utf8))
        let answer: ProviderHTTP.Answer
        do {
            answer = try await http.send(request)
        } catch {
            throw TokenExchangeError("token exchange: no answer (\(error))")
        }
        guard answer.status == 200 else {
            let transient = [408, 429].contains(answer.status) || (500..<600).contains(answer.status)
            let code = (answer.object?["error"] as? String).map { " \($0.prefix(40))" } ?? ""
            throw TokenExchangeError(
                "token exchange answered \(answer.status)\(code)",
                retryAfterSeconds: transient ? ProviderAnswerMeaning.retryAfter(answer.headers) : nil
            )
        }
        guard let object = answer.object, let token = object["access_token"] as? String else {
            throw TokenExchangeError("token exchange: the answer holds no access_token")
        }
        if let issued = object["issued_token_type"] as? String, issued != Self.accessTokenType {
            throw TokenExchangeError("token exchange: the issued token is not an access token")
        }
        guard !token.isEmpty, token.utf8.count <= Self.maximumTokenBytes, token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw TokenExchangeError("token exchange: the access_token is empty, too long or not visible ASCII")
        }
        guard token != subjectToken else {
            throw TokenExchangeError("token exchange: the provider handed back the app's own token")
        }
        return token
    }
}
