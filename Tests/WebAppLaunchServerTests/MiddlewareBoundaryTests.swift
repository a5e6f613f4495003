import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport
import WebAppRegistry

/// Issue 29, the boundary matrix's middleware row: a bare Hummingbird app that adds
/// ``LaunchVerificationMiddleware`` gets the same guards as `serve` and the gate, from the
/// same mechanisms. (The process entry points' rows are in
/// `WebAppLaunchCLITests/BoundaryMatrixTests`.)
@Suite("Boundary matrix, middleware row: a bare Hummingbird app with the middleware enforces every guard")
struct MiddlewareBoundaryTests {
    static let publicApp = try! RegisteredURL("https://magazin.example/apps/healthmagazin")

    @Test("development keys (the embedded keyring, or its flagless app keyring) are refused for a non-loopback audience")
    func developmentKeysOffLoopback() throws {
        let development = try DevelopmentDefaults.keyring()
        let exported = try development.exportingApp("healthmagazin")
        let flagless = try Keyring(appKeys: exported.keys, forApp: "healthmagazin", isDevelopment: false)
        for keyring in [development, exported, flagless] {
            let verifier = try LaunchVerifier(keyring: keyring, appID: "healthmagazin", audiences: [Self.publicApp])
            let error = #expect(throws: ConfigurationError.self) {
                try LaunchVerificationMiddleware<WebAppRequestContext>(verifier: verifier, replayStore: InMemoryReplayStore(capacity: 64))
            }
            #expect(error?.code == .developmentKeys)
        }
        // On loopback the same keys are the development setup and work.
        let local = try LaunchVerifier(keyring: flagless, appID: "healthmagazin", audiences: [try RegisteredURL("http://127.0.0.1:8080/apps/healthmagazin")])
        _ = try LaunchVerificationMiddleware<WebAppRequestContext>(verifier: local, replayStore: InMemoryReplayStore(capacity: 64))
    }

    @Test("production keys serve a non-loopback audience")
    func productionKeysServePublicAudience() throws {
        let key = try KeyringKey(kid: "prod", status: .active, secret: try KeySecret.generate())
        let verifier = try LaunchVerifier(keyring: try Keyring(keys: [key], isDevelopment: false), appID: "healthmagazin", audiences: [Self.publicApp])
        _ = try LaunchVerificationMiddleware<WebAppRequestContext>(verifier: verifier, replayStore: InMemoryReplayStore(capacity: 64))
    }

    @Test("login CSRF: with a live session of another user, a same-site or cross-site launch is refused; same-origin and none replace it",
          arguments: [("same-site", false), ("cross-site", false), ("SAME-SITE", false), ("unknown-value", false), ("same-origin", true), ("none", true)])
    func loginCSRF(fetchSite: String, replaces: Bool) async throws {
        try await MiddlewareStandaloneTests.application().test(.router) { client async throws in
            let victim = try await client.sessionCookie(for: Fixtures.token(for: Fixtures.magazin), at: Fixtures.magazin)
            var headers = requestHeaders(cookie: victim, json: false)
            headers[HTTPField.Name("Sec-Fetch-Site")!] = fetchSite
            let attacker = Fixtures.token(for: Fixtures.magazin, user: LoginCSRFTests.attacker)
            let response = try await client.execute(uri: "/apps/healthmagazin?launch=" + attacker, method: .get, headers: headers)
            #expect(response.status == (replaces ? .seeOther : .unauthorized))
            #expect(response.setCookies.isEmpty != replaces)
        }
    }

    @Test("login CSRF: an Origin of a sibling subdomain is foreign even when Fetch Metadata says same-origin; Origin: null only with Fetch Metadata",
          arguments: [("https://sibling.example", "same-origin", false), ("null", nil, false), ("null", "same-origin", true), ("http://127.0.0.1:8080", nil, true)] as [(String, String?, Bool)])
    func loginCSRFOrigin(origin: String, fetchSite: String?, replaces: Bool) async throws {
        try await MiddlewareStandaloneTests.application().test(.router) { client async throws in
            let victim = try await client.sessionCookie(for: Fixtures.token(for: Fixtures.magazin), at: Fixtures.magazin)
            var headers = requestHeaders(cookie: victim, json: false)
            headers[.origin] = origin
            if let fetchSite { headers[HTTPField.Name("Sec-Fetch-Site")!] = fetchSite }
            let attacker = Fixtures.token(for: Fixtures.magazin, user: LoginCSRFTests.attacker)
            let response = try await client.execute(uri: "/apps/healthmagazin?launch=" + attacker, method: .get, headers: headers)
            #expect(response.status == (replaces ? .seeOther : .unauthorized))
        }
    }
}

/// Issue 37: a plain visit (no launch, no session) is told to start from the app, not that its
/// link is invalid, so a partner's tester does not read it as a broken setup.
@Suite("A visit with neither a launch nor a session is answered no_session, not invalid")
struct NoSessionAnswerTests {
    @Test("the page says to start from the app and names no_session; JSON carries error no_session; a bad launch still says invalid", arguments: [false, true])
    func plainVisit(json: Bool) async throws {
        try await MiddlewareStandaloneTests.application().test(.router) { client async throws in
            let visit = try await client.get("/apps/healthmagazin", json: json)
            #expect(visit.status == .unauthorized)
            #expect(visit.text.contains("no_session"))
            if !json { #expect(visit.text.contains("Please start this web app from your app")) }
            let forged = try await client.get("/apps/healthmagazin?launch=AAAA", json: json)
            #expect(forged.status == .unauthorized)
            #expect(forged.text.contains("invalid") && !forged.text.contains("no_session"))
        }
    }
}

/// Issue 37: a `--public-url` that differs from the registered URL shows users only "not
/// valid"; the log names both URLs (they are public) so an operator can fix it.
@Suite("A wrong audience is logged with the expected and the presented registered URL")
struct WrongAudienceLogTests {
    @Test("a launch for another registered URL is refused as wrong_audience, and its log line names both URLs and no personal data")
    func wrongAudienceNamesBothURLs() async throws {
        // Served under a host alias: the same path, another origin than the registered URL.
        let alias = try RegisteredURL("http://localhost:8080/apps/healthmagazin")
        let configuration = WebAppServerConfiguration(keyring: Fixtures.keyring, registry: Fixtures.registry, apps: [ServedApp(Fixtures.magazin, publicURL: alias)])
        let server = try TestServer(configuration: configuration)
        try await server.test { client async throws in
            let response = try await client.get("/apps/healthmagazin?launch=" + Fixtures.token(for: Fixtures.magazin))
            #expect(response.status == .unauthorized)
        }
        let line = try #require(server.logs.lines("launch.rejected", where: "code", is: "wrong_audience").first)
        let detail = try #require(line.metadata["detail"])
        #expect(detail.contains(Fixtures.magazin.url.description), "the presented (registered) URL")
        #expect(detail.contains(alias.description), "the expected (configured) URL")
        for secret in [Fixtures.user.accessToken, Fixtures.user.lastName, Fixtures.user.kvnumber] {
            #expect(!detail.contains(secret))
        }
    }
}
