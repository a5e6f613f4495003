import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import WebAppLaunch
import WebAppLaunchLauncher
import WebAppLaunchNative
import WebAppLaunchLauncherClient
import WebAppLaunchTestSupport

/// `LauncherClient` (WebAppLaunchNative, URLSession) against the launcher running on a
/// loopback socket, with tokens from the real OpenID provider.
@Suite("Native launcher client", .traced)
struct LauncherClientTests {
    @Test("The client reads the catalogue (again through a 304) and gets a launch that verifies")
    func catalogueAndLaunch() async throws {
        try await withOIDCProvider { mock, provider in
            try await mock.setUser("ivan", claims: LauncherFixtures.claims)
            let token = try await mock.accessToken(for: "ivan")
            let app = LauncherFixtures.application(LauncherFixtures.service(provider: provider))
            try await app.test(.live) { client in
                TestTrace.note("launcher client: launcher listening")
                let launcher = try LauncherClient(baseURL: URL(string: "http://127.0.0.1:\(try #require(client.port))")!)
                let cards = try await launcher.catalogue()
                TestTrace.note("launcher client: catalogue read")
                #expect(cards.map(\.id) == ["healthmagazin", "bonusprogramm"])
                #expect(cards[0].iconURL == URL(string: "https://cdn.example-insurer.de/icons/magazin.png"))
                #expect(cards[0].category == "health")
                #expect(cards[1].url == URL(string: "http://127.0.0.1:8080/apps/bonusprogramm?tenant=demo"))
                #expect(try await launcher.catalogue() == cards)

                let launch = try await launcher.launchURL(for: "bonusprogramm", accessToken: token)
                TestTrace.note("launcher client: launch received")
                let verified = try LaunchVerifier(keyring: LauncherFixtures.keyring, app: LauncherFixtures.bonus)
                    .verify(url: launch.url.absoluteString, now: Date())
                #expect(verified.claims.firstName == "Jürgen-Quirin")
                #expect(verified.claims.kvnr.value == "A123456780")
                #expect(UInt64(launch.expiresAt.timeIntervalSince1970) == verified.header.expiresAt)
            }
        }
    }

    @Test("The client turns the launcher's refusals into typed errors")
    func typedErrors() async throws {
        try await withOIDCProvider { mock, provider in
            try await mock.setUser("judy", claims: LauncherFixtures.claims)
            let token = try await mock.accessToken(for: "judy")
            let unknownUserToken = try await mock.accessToken(for: "mallory")
            let limiter = SubjectRateLimiter(capacity: 1, refillInterval: .seconds(60))
            let app = LauncherFixtures.application(LauncherFixtures.service(provider: provider, rateLimiter: limiter))
            try await app.test(.live) { client in
                TestTrace.note("launcher client: launcher listening")
                let launcher = try LauncherClient(baseURL: URL(string: "http://127.0.0.1:\(try #require(client.port))/")!)
                // oidc-provider-mock answers an unknown token with 400 access_denied, which is no
                // verdict on the token (RFC 6750 says 401 or invalid_token): 503, nothing minted.
                await #expect(throws: LauncherClientError.unavailable(status: 503)) {
                    _ = try await launcher.launchURL(for: "healthmagazin", accessToken: "not-a-token-the-provider-issued")
                }
                await #expect(throws: LauncherClientError.unknownApp) {
                    _ = try await launcher.launchURL(for: "nosuchapp", accessToken: token)
                }
                await #expect(throws: LauncherClientError.forbidden(code: "missing_claims")) {
                    _ = try await launcher.launchURL(for: "healthmagazin", accessToken: unknownUserToken)
                }
                _ = try await launcher.launchURL(for: "healthmagazin", accessToken: token)
                do {
                    _ = try await launcher.launchURL(for: "healthmagazin", accessToken: token)
                    Issue.record("no rate limit")
                } catch let error as LauncherClientError {
                    guard case .rateLimited(let seconds) = error else { Issue.record("got \(error)"); return }
                    #expect(seconds != nil)
                }
                try await mock.stop()
                TestTrace.note("launcher client: provider stopped early")
                let fresh = try LauncherClient(baseURL: URL(string: "http://127.0.0.1:\(try #require(client.port))")!)
                await #expect(throws: LauncherClientError.unavailable(status: 503)) {
                    _ = try await fresh.launchURL(for: "bonusprogramm", accessToken: "another-token")
                }
            }
        }
    }

    @Test("A token the provider refuses (401) is LauncherClientError.invalidToken")
    func refusedTokenIsInvalidToken() async throws {
        let app = LauncherFixtures.application(LauncherFixtures.service(provider: StubIdentityProvider(.failure(.invalidToken))))
        try await app.test(.live) { client in
            let launcher = try LauncherClient(baseURL: URL(string: "http://127.0.0.1:\(try #require(client.port))/")!)
            await #expect(throws: LauncherClientError.invalidToken) {
                _ = try await launcher.launchURL(for: "healthmagazin", accessToken: "not-a-token-the-provider-issued")
            }
        }
    }

    @Test("The client refuses a launcher over plain http off loopback, loopback decided from the parsed host (issue 29)", arguments: [
        "http://launcher.example", "ftp://127.0.0.1", "file:///tmp/x",
        "http://127.evil.example/", "http://127.0.0.1.nip.io/", "http://127.0.0.08/", "http://user@127.0.0.1/",
    ])
    func insecureBaseURL(text: String) {
        #expect(throws: LauncherClientError.insecureBaseURL) { _ = try LauncherClient(baseURL: URL(string: text)!) }
    }

    @Test("An unreachable launcher is a transport error")
    func unreachable() async throws {
        let listener = try SilentListener()
        let port = listener.port
        listener.close()
        let launcher = try LauncherClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, timeout: 5)
        do {
            _ = try await launcher.catalogue()
            Issue.record("no error")
        } catch {
            guard case .transport = error else { Issue.record("got \(error)"); return }
        }
    }
}
