import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import HummingbirdTesting
import Testing
import WebAppLaunch
import WebAppLaunchLauncher
import WebAppLaunchTestSupport

/// `POST /v1/launches` against a real OpenID provider (oidc-provider-mock from PyPI) on
/// loopback, with access tokens from its authorization-code flow: the rows of the error
/// table that depend on the provider.
@Suite("Launches against a real OpenID provider", .traced)
struct ProviderLaunchTests {
    @Test("A token the provider vouches for mints a launch that verifies, with the provider's claims")
    func successMintsVerifiableLaunch() async throws {
        try await withOIDCProvider { mock, provider in
            try await mock.setUser("alice", claims: LauncherFixtures.claims)
            let token = try await mock.accessToken(for: "alice")
            let app = LauncherFixtures.application(LauncherFixtures.service(provider: provider))
            try await app.test(.router) { client in
                try await client.postLaunch(token: token, body: #"{"app":"healthmagazin"}"#) { response in
                    #expect(response.status == .created)
                    #expect(response.headers[.cacheControl] == "no-store")
                    let object = LauncherFixtures.json(response.body)
                    let url = try #require(object["url"] as? String)
                    let expiresText = try #require(object["expires_at"] as? String)
                    let expiresAt = try #require(try? Date(expiresText, strategy: .iso8601))
                    #expect(url.hasPrefix("http://127.0.0.1:8080/apps/healthmagazin?launch="))
                    let verified = try LaunchVerifier(keyring: LauncherFixtures.keyring, app: LauncherFixtures.magazin)
                        .verify(url: url, now: Date())
                    #expect(verified.claims.firstName == "Jürgen-Quirin")
                    #expect(verified.claims.lastName == "Großmann-Zydeck")
                    #expect(verified.claims.kvnr.value == "A123456780")
                    // The registry entry asks for no token: the app's own never travels on.
                    #expect(verified.claims.accessToken.isEmpty)
                    #expect(!url.contains(token))
                    #expect(verified.header.appID == "healthmagazin")
                    #expect(UInt64(expiresAt.timeIntervalSince1970) == verified.header.expiresAt)
                }
            }
        }
    }

    /// oidc-provider-mock 0.3.4 answers a revoked token with 400 `access_denied`, not RFC
    /// 6750's 401 or `invalid_token`: an answer the launcher cannot read as a refusal, so it
    /// mints nothing and says the provider is unavailable (the 401 rows are in
    /// ``ProviderFailureTests``).
    @Test("A revoked token mints nothing: the provider's 400 access_denied is 503, not a launch")
    func revokedTokenMintsNothing() async throws {
        try await withOIDCProvider { mock, provider in
            try await mock.setUser("bob", claims: LauncherFixtures.claims)
            let token = try await mock.accessToken(for: "bob")
            try await mock.revokeTokens(of: "bob")
            let app = LauncherFixtures.application(LauncherFixtures.service(provider: provider))
            try await app.test(.router) { client in
                try await client.postLaunch(token: token, body: #"{"app":"healthmagazin"}"#) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(LauncherFixtures.json(response.body)["error"] as? String == "provider_unavailable")
                    #expect(LauncherFixtures.json(response.body)["url"] == nil)
                }
            }
        }
    }

    @Test("Without a cache, a token revoked after one launch mints nothing on the next")
    func revocationAfterUseIsSeenWithoutCache() async throws {
        try await withOIDCProvider { mock, provider in
            try await mock.setUser("carol", claims: LauncherFixtures.claims)
            let token = try await mock.accessToken(for: "carol")
            let app = LauncherFixtures.application(LauncherFixtures.service(provider: provider, cache: nil))
            try await app.test(.router) { client in
                let body = #"{"app":"bonusprogramm"}"#
                try await client.postLaunch(token: token, body: body) { response in
                    #expect(response.status == .created)
                }
                try await mock.revokeTokens(of: "carol")
                try await client.postLaunch(token: token, body: body) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(LauncherFixtures.json(response.body)["url"] == nil)
                }
            }
        }
    }

    @Test("A user whose claims the provider does not know (no names, no KVNR) is refused with 403")
    func unknownUserClaimsAre403() async throws {
        try await withOIDCProvider { mock, provider in
            // Never PUT: the provider makes the user up at login, with no names or KVNR.
            let token = try await mock.accessToken(for: "dave")
            let app = LauncherFixtures.application(LauncherFixtures.service(provider: provider))
            try await app.test(.router) { client in
                try await client.postLaunch(token: token, body: #"{"app":"healthmagazin"}"#) { response in
                    #expect(response.status == .forbidden)
                    #expect(LauncherFixtures.json(response.body)["error"] as? String == "missing_claims")
                }
            }
        }
    }

    @Test("A KVNR claim with a wrong check digit is refused with 403")
    func invalidKVNRClaimIs403() async throws {
        try await withOIDCProvider { mock, provider in
            try await mock.setUser("erin", claims: LauncherFixtures.claims.merging(["kvnr": "A123456781"]) { $1 })
            let token = try await mock.accessToken(for: "erin")
            let app = LauncherFixtures.application(LauncherFixtures.service(provider: provider))
            try await app.test(.router) { client in
                try await client.postLaunch(token: token, body: #"{"app":"healthmagazin"}"#) { response in
                    #expect(response.status == .forbidden)
                    #expect(LauncherFixtures.json(response.body)["error"] as? String == "invalid_claims")
                }
            }
        }
    }

    @Test("Configured claim names are read: the KVNR from a custom claim")
    func customClaimNames() async throws {
        try await withOIDCProvider { mock, provider in
            try await mock.setUser("frank", claims: ["given_name": "Frank", "family_name": "O'Brien", "versichertennummer": "A123456780"])
            let token = try await mock.accessToken(for: "frank")
            let service = LauncherFixtures.service(provider: provider, claims: ClaimMapping(kvnumber: "versichertennummer"))
            let launch = try await service.launch(appID: "healthmagazin", accessToken: token)
            let verified = try LaunchVerifier(keyring: LauncherFixtures.keyring, app: LauncherFixtures.magazin).verify(url: launch.url, now: Date())
            #expect(verified.claims.lastName == "O'Brien")
            #expect(verified.claims.kvnr.value == "A123456780")
        }
    }

    @Test("A stopped provider means 503 and nothing minted (fail closed)")
    func stoppedProviderIs503() async throws {
        try await withOIDCProvider { mock, provider in
            try await mock.setUser("grace", claims: LauncherFixtures.claims)
            let token = try await mock.accessToken(for: "grace")
            // Discovery is fetched and cached while the provider runs, so the userinfo call
            // itself is what fails.
            _ = try await provider.configuration()
            try await mock.stop()
            let app = LauncherFixtures.application(LauncherFixtures.service(provider: provider))
            try await app.test(.router) { client in
                try await client.postLaunch(token: token, body: #"{"app":"healthmagazin"}"#) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(LauncherFixtures.json(response.body)["error"] as? String == "provider_unavailable")
                    #expect(LauncherFixtures.json(response.body)["url"] == nil)
                }
            }
        }
    }

    @Test("More launches than the per-subject limit allows are refused with 429 and Retry-After")
    func rateLimitIs429() async throws {
        try await withOIDCProvider { mock, provider in
            try await mock.setUser("heidi", claims: LauncherFixtures.claims)
            let token = try await mock.accessToken(for: "heidi")
            let otherToken = try await mock.accessToken(for: "heidi")
            let limiter = SubjectRateLimiter(capacity: 2, refillInterval: .seconds(60))
            let app = LauncherFixtures.application(LauncherFixtures.service(provider: provider, rateLimiter: limiter))
            try await app.test(.router) { client in
                let body = #"{"app":"healthmagazin"}"#
                for _ in 0..<2 {
                    try await client.postLaunch(token: token, body: body) { response in
                        #expect(response.status == .created)
                    }
                }
                // A second token of the same user shares the subject's bucket.
                try await client.postLaunch(token: otherToken, body: body) { response in
                    #expect(response.status == .tooManyRequests)
                    #expect(LauncherFixtures.json(response.body)["error"] as? String == "rate_limited")
                    let retryAfter = try #require(response.headers[.retryAfter].flatMap { Int($0) })
                    #expect((1...60).contains(retryAfter))
                }
            }
        }
    }
}
