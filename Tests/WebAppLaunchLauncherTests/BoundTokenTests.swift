import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WebAppLaunch
import WebAppLaunchLauncher
import WebAppLaunchTestSupport
import WebAppRegistry

/// Issue 30, against a real OAuth provider built on Authlib: the launcher accepts only tokens
/// issued to the native app for the launcher, and what a partner receives is a token
/// exchanged for that partner, which mints nothing. Every test runs in both modes where both
/// apply: RFC 9068 JWT access tokens (verified locally with jwt-kit) and opaque tokens
/// (RFC 7662 introspection).
@Suite("Tokens bound to the native app, exchanged for partners (Authlib provider)", .traced)
struct BoundTokenTests {
    static let magazin = try! WebApp(
        id: "healthmagazin", title: "Gesundheitsmagazin",
        url: RegisteredURL("http://127.0.0.1:8080/apps/healthmagazin"),
        accessToken: .exchanged(audience: AuthlibProvider.magazinAudience, scopes: ["magazin:read"])
    )
    static let bonus = try! WebApp(
        id: "bonusprogramm", title: "Bonusprogramm",
        url: RegisteredURL("http://127.0.0.1:8080/apps/bonusprogramm?tenant=demo"),
        accessToken: .exchanged(audience: AuthlibProvider.bonusAudience, scopes: [])
    )
    static let plain = try! WebApp(id: "plain", title: "Plain", url: RegisteredURL("http://127.0.0.1:8080/apps/plain"))
    static let registry = try! Registry(apps: [magazin, bonus, plain])
    static let policy = NativeAppTokenPolicy(clientIDs: ["native-app"], audience: AuthlibProvider.launcherAudience)

    /// How the launcher confirms tokens in a format: jwt-kit against the JWKS, or introspection.
    static func confirmer(
        _ provider: AuthlibProvider, client: HTTPClient, policy: NativeAppTokenPolicy = policy,
        minimumRefetchInterval: Duration = .seconds(30), timeout: Duration = .seconds(5)
    ) -> any IdentityProvider {
        switch provider.format {
        case .jwt:
            JWTAccessTokenProvider(
                issuer: provider.issuer, jwksURL: provider.jwksURL, policy: policy, httpClient: client,
                timeout: timeout, minimumRefetchInterval: minimumRefetchInterval
            )
        case .opaque:
            IntrospectionProvider(
                endpoint: provider.introspectionURL, clientID: AuthlibProvider.launcherClient.id,
                clientSecret: AuthlibProvider.launcherClient.secret, policy: policy, httpClient: client, timeout: timeout
            )
        }
    }

    static func service(
        _ provider: AuthlibProvider, client: HTTPClient, identity: (any IdentityProvider)? = nil,
        refusedTokens: RefusedTokenCache? = nil, timeout: Duration = .seconds(5)
    ) -> LauncherService {
        LauncherService(
            signer: try! LaunchSigner(keyring: LauncherFixtures.keyring, registry: registry),
            identityProvider: identity ?? confirmer(provider, client: client, timeout: timeout),
            cache: nil,
            rateLimiter: SubjectRateLimiter(capacity: 1000, refillInterval: .milliseconds(10)),
            tokenExchanger: OAuthTokenExchanger(
                tokenEndpoint: provider.tokenURL, clientID: AuthlibProvider.launcherClient.id,
                clientSecret: AuthlibProvider.launcherClient.secret, httpClient: client, timeout: timeout
            ),
            refusedTokens: refusedTokens
        )
    }

    /// The access token inside a launch, read the way partner A reads it: with A's app keyring.
    static func carriedToken(_ launch: MintedLaunch, app: WebApp) throws -> String {
        let appKeyring = try LauncherFixtures.keyring.exportingApp(app.id)
        return try LaunchVerifier(keyring: appKeyring, app: app).verify(url: launch.url, now: Date()).claims.accessToken
    }

    static func expectRefused(_ service: LauncherService, app: String, token: String, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) async {
        do throws(LauncherError) {
            _ = try await service.launch(appID: app, accessToken: token)
            Issue.record(Comment(rawValue: "minted for \(app)" + (comment.map { ": \($0.rawValue)" } ?? "")), sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .invalidToken, comment, sourceLocation: sourceLocation)
            #expect(error.httpStatus == 401, sourceLocation: sourceLocation)
        }
    }

    @Test("The native app's token mints; the launch carries a token exchanged for that partner, never the app's", arguments: [AuthlibProvider.Format.jwt, .opaque])
    func exchangedTokenInLaunch(format: AuthlibProvider.Format) async throws {
        try await withAuthlibProvider(format: format) { provider, client in
            let appToken = try await provider.tokens().access
            let service = Self.service(provider, client: client)
            let launch = try await service.launch(appID: "bonusprogramm", accessToken: appToken)
            let carried = try Self.carriedToken(launch, app: Self.bonus)
            #expect(!carried.isEmpty)
            #expect(carried != appToken)
            // The partner's resource (its audience, tokens the launcher obtained) accepts it.
            let partner = Self.confirmer(provider, client: client, policy: NativeAppTokenPolicy(clientIDs: ["launcher"], audience: AuthlibProvider.bonusAudience))
            let identity = try await partner.identity(forAccessToken: carried)
            #expect(identity.subject == "alice")
            // An app whose entry asks for no token gets none.
            let plain = try await service.launch(appID: "plain", accessToken: appToken)
            #expect(try Self.carriedToken(plain, app: Self.plain) == "")
            #expect(try await provider.counts()["exchange"] == 1)
        }
    }

    @Test("The review's attack: the token from A's launch, presented for B and for A, is refused (401)", arguments: [AuthlibProvider.Format.jwt, .opaque])
    func partnerTokenMintsNothing(format: AuthlibProvider.Format) async throws {
        try await withAuthlibProvider(format: format) { provider, client in
            let service = Self.service(provider, client: client)
            let launch = try await service.launch(appID: "healthmagazin", accessToken: try await provider.tokens().access)
            let stolen = try Self.carriedToken(launch, app: Self.magazin)
            await Self.expectRefused(service, app: "bonusprogramm", token: stolen, "A's token for B")
            await Self.expectRefused(service, app: "healthmagazin", token: stolen, "A's token for A")
            // Over HTTP too, as A's upstream would send it.
            try await LauncherFixtures.application(service).test(.router) { http in
                try await http.postLaunch(token: stolen, body: #"{"app":"bonusprogramm"}"#) { response in
                    #expect(response.status == .unauthorized)
                    #expect(response.headers[.wwwAuthenticate] == #"Bearer error="invalid_token""#)
                }
            }
        }
    }

    @Test("A token issued to another client, and a refresh token, are refused", arguments: [AuthlibProvider.Format.jwt, .opaque])
    func otherClientAndRefreshToken(format: AuthlibProvider.Format) async throws {
        try await withAuthlibProvider(format: format) { provider, client in
            let service = Self.service(provider, client: client)
            let other = try await provider.tokens(client: "other-client")
            await Self.expectRefused(service, app: "plain", token: other.access, "another client's access token")
            let native = try await provider.tokens()
            let refresh = try #require(native.refresh)
            await Self.expectRefused(service, app: "plain", token: refresh, "the native app's refresh token")
            // The native app's own access token is fine (the refusals are about the token, not the user).
            _ = try await service.launch(appID: "plain", accessToken: native.access)
        }
    }

    enum Forgery: String, CaseIterable, Sendable {
        case expired = "expired"
        case wrongAudience = "wrong aud"
        case wrongIssuer = "wrong iss"
        case otherClient = "client_id of another client"
        case noClient = "no client_id"
        case futureIssuedAt = "iat in the future"
        case wrongType = "typ JWT instead of at+jwt"
        case unknownKey = "unknown kid (a key never published)"
        case foreignKeyKnownKid = "signed by another key under a published kid"
        case algNone = "alg none"
        case hmacWithPublicKey = "HS256 keyed with the public key"
    }

    @Test("Forged and misissued JWT access tokens are refused", arguments: Forgery.allCases)
    func forgedJWT(forgery: Forgery) async throws {
        try await withAuthlibProvider(format: .jwt) { provider, client in
            let service = Self.service(provider, client: client)
            let now = Int(Date().timeIntervalSince1970)
            let token: String = switch forgery {
            case .expired: try await provider.sign(claims: provider.claims { $0["exp"] = now - 3600; $0["iat"] = now - 4200 })
            case .wrongAudience: try await provider.sign(claims: provider.claims { $0["aud"] = AuthlibProvider.bonusAudience })
            case .wrongIssuer: try await provider.sign(claims: provider.claims { $0["iss"] = "https://evil.example" })
            case .otherClient: try await provider.sign(claims: provider.claims { $0["client_id"] = "other-client" })
            case .noClient: try await provider.sign(claims: provider.claims { $0["client_id"] = nil })
            case .futureIssuedAt: try await provider.sign(claims: provider.claims { $0["iat"] = now + 3600 })
            case .wrongType: try await provider.sign(claims: provider.claims(), header: ["typ": "JWT"])
            case .unknownKey: try await provider.sign(claims: provider.claims(), key: "foreign")
            case .foreignKeyKnownKid: try await provider.sign(claims: provider.claims(), header: ["kid": try await currentKid(provider)], key: "foreign")
            case .algNone: try await provider.sign(claims: provider.claims(), key: "none")
            case .hmacWithPublicKey: try await provider.sign(claims: provider.claims(), key: "hs256-public")
            }
            await Self.expectRefused(service, app: "plain", token: token, Comment(rawValue: forgery.rawValue))
            // The control: the same claims, properly signed, mint.
            _ = try await service.launch(appID: "plain", accessToken: try await provider.sign(claims: provider.claims()))
        }
    }

    private func currentKid(_ provider: AuthlibProvider) async throws -> String {
        let token = try await provider.sign(claims: provider.claims())
        let header = try #require(token.split(separator: ".").first)
        var text = String(header).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        let data = try #require(Data(base64Encoded: text))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["kid"] as? String)
    }

    @Test("After a key rotation the new key is fetched once and accepted; unknown kids cannot make the launcher refetch faster than its bound")
    func keyRotationAndBoundedRefetch() async throws {
        try await withAuthlibProvider(format: .jwt) { provider, client in
            let confirmer = JWTAccessTokenProvider(
                issuer: provider.issuer, jwksURL: provider.jwksURL, policy: Self.policy, httpClient: client,
                minimumRefetchInterval: .seconds(2)
            )
            let service = Self.service(provider, client: client, identity: confirmer)
            _ = try await service.launch(appID: "plain", accessToken: try await provider.tokens().access)
            #expect(try await provider.counts()["jwks"] == 1)
            // Wait out the refetch bound, then rotate (the old key is withdrawn).
            try await Task.sleep(for: .milliseconds(2100))
            try await provider.rotateKeys(keepOld: false)
            _ = try await service.launch(appID: "plain", accessToken: try await provider.tokens().access)
            #expect(try await provider.counts()["jwks"] == 2)
            // Twenty tokens with made-up kids within the bound: refused, and at most one fetch.
            for index in 0..<20 {
                let forged = try await provider.sign(claims: provider.claims(), header: ["kid": "made-up-\(index)"], key: "foreign")
                await Self.expectRefused(service, app: "plain", token: forged)
            }
            let fetches = try #require(try await provider.counts()["jwks"])
            #expect(fetches <= 3, "the key set was fetched \(fetches) times")
            #expect(confirmer.keySetFetches == fetches)
        }
    }

    @Test("A token exchange the provider refuses or cannot serve is 503, nothing minted, Retry-After passed on", arguments: [AuthlibProvider.Format.jwt, .opaque])
    func exchangeFailureIs503(format: AuthlibProvider.Format) async throws {
        try await withAuthlibProvider(format: format) { provider, client in
            let service = Self.service(provider, client: client)
            let token = try await provider.tokens().access
            try await LauncherFixtures.application(service).test(.router) { http in
                try await provider.fail("exchange", status: 503, retryAfter: "7", times: 1)
                try await http.postLaunch(token: token, body: #"{"app":"bonusprogramm"}"#) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(LauncherFixtures.json(response.body)["error"] as? String == "token_exchange_failed")
                    #expect(response.headers[.retryAfter] == "7")
                }
                try await provider.fail("exchange", status: 400, body: ["error": "invalid_request"], times: 1)
                try await http.postLaunch(token: token, body: #"{"app":"bonusprogramm"}"#) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(response.headers[.retryAfter] == nil)
                }
                // The provider's own refusal: an audience it does not know (invalid_target).
                let stray = LauncherService(
                    signer: try LaunchSigner(keyring: LauncherFixtures.keyring, registry: try Registry(apps: [try WebApp(
                        id: "stray", title: "Stray", url: RegisteredURL("http://127.0.0.1:8080/apps/stray"),
                        accessToken: .exchanged(audience: "https://unknown.example", scopes: [])
                    )])),
                    identityProvider: Self.confirmer(provider, client: client),
                    tokenExchanger: OAuthTokenExchanger(tokenEndpoint: provider.tokenURL, clientID: "launcher", clientSecret: "launcher-secret", httpClient: client)
                )
                do throws(LauncherError) {
                    _ = try await stray.launch(appID: "stray", accessToken: token)
                    Issue.record("minted with a refused exchange")
                } catch {
                    #expect(error.code == .tokenExchangeFailed)
                    #expect(error.httpStatus == 503)
                }
                // And it recovers once the provider does.
                try await http.postLaunch(token: token, body: #"{"app":"bonusprogramm"}"#) { response in
                    #expect(response.status == .created)
                }
            }
        }
    }

    @Test("A token endpoint that sends its answer a byte at a time is cut off at the provider timeout (503)")
    func slowExchangeBodyIsBounded() async throws {
        try await withAuthlibProvider(format: .jwt, readTimeout: .seconds(60)) { provider, client in
            let service = Self.service(provider, client: client, timeout: .seconds(1))
            let token = try await provider.tokens().access
            _ = try await service.launch(appID: "plain", accessToken: token)  // key set fetched before the drip
            try await provider.fail("exchange", dripSeconds: 0.2)
            let started = ContinuousClock.now
            do throws(LauncherError) {
                _ = try await service.launch(appID: "bonusprogramm", accessToken: token)
                Issue.record("minted without an exchanged token")
            } catch {
                #expect(error.code == .tokenExchangeFailed)
            }
            // The drip would last two minutes; the bound is loose for a busy machine.
            #expect(started.duration(to: .now) < .seconds(10))
        }
    }

    @Test("A stopped provider is 503 for the exchange (the key set already fetched)")
    func stoppedProviderExchangeIs503() async throws {
        try await withAuthlibProvider(format: .jwt, connectTimeout: .seconds(1)) { provider, client in
            let service = Self.service(provider, client: client, timeout: .seconds(2))
            let token = try await provider.tokens().access
            _ = try await service.launch(appID: "plain", accessToken: token)
            try await provider.stop()
            // JWT tokens are confirmed locally; the exchange needs the provider.
            _ = try await service.launch(appID: "plain", accessToken: token)
            do throws(LauncherError) {
                _ = try await service.launch(appID: "bonusprogramm", accessToken: token)
                Issue.record("minted without the provider")
            } catch {
                #expect(error.code == .tokenExchangeFailed)
            }
        }
    }

    @Test("Introspection answering 429 with Retry-After is 503 with the same Retry-After")
    func introspectionThrottled() async throws {
        try await withAuthlibProvider(format: .opaque) { provider, client in
            let service = Self.service(provider, client: client)
            let token = try await provider.tokens().access
            try await provider.fail("introspect", status: 429, retryAfter: "12", times: 1)
            try await LauncherFixtures.application(service).test(.router) { http in
                try await http.postLaunch(token: token, body: #"{"app":"plain"}"#) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(LauncherFixtures.json(response.body)["error"] as? String == "provider_unavailable")
                    #expect(response.headers[.retryAfter] == "12")
                }
                try await http.postLaunch(token: token, body: #"{"app":"plain"}"#) { response in
                    #expect(response.status == .created)
                }
            }
        }
    }

    @Test("The same garbage token sent again and again reaches the provider once (refused-token cache)")
    func garbageIsNotPassedOnOneToOne() async throws {
        try await withAuthlibProvider(format: .opaque) { provider, client in
            let service = Self.service(provider, client: client, refusedTokens: RefusedTokenCache(lifetime: .seconds(30)))
            for _ in 0..<10 {
                await Self.expectRefused(service, app: "plain", token: "garbage-token-Qx7")
            }
            let counts = try await provider.counts()
            #expect(counts["introspect"] == 1)
        }
    }
}
