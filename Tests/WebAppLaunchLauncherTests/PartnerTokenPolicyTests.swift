import Foundation
import Testing
import WebAppLaunch
import WebAppLaunchLauncher
import WebAppLaunchTestSupport
import WebAppRegistry

/// The rules around the token a launch carries that need no provider: the registry's
/// per-app entry, the development pass-through, the exchanger's absence, and the keyed
/// subject reference in the log.
@Suite("Partner tokens: registry entry, pass-through, log reference")
struct PartnerTokenPolicyTests {
    static func productionKeyring() throws -> Keyring {
        try Keyring(keys: [KeyringKey(kid: "prod-1", status: .active, secret: KeySecret.generate())], isDevelopment: false)
    }

    @Test("A registry entry says none (or nothing) or an exchange with audience and scopes")
    func registryEntries() throws {
        let json = #"""
        {"apps": [
          {"id": "a", "title": "A", "url": "https://a.example/"},
          {"id": "b", "title": "B", "url": "https://b.example/", "accessToken": "none"},
          {"id": "c", "title": "C", "url": "https://c.example/", "accessToken": {"exchange": {"audience": "https://api.c.example", "scope": "c:read c:write"}}},
          {"id": "d", "title": "D", "url": "https://d.example/", "accessToken": {"exchange": {"audience": "urn:partner:d"}}}
        ]}
        """#
        let registry = try Registry(json: Data(json.utf8))
        #expect(registry.app(id: "a")?.accessToken == PartnerAccessToken.none)
        #expect(registry.app(id: "b")?.accessToken == PartnerAccessToken.none)
        #expect(registry.app(id: "c")?.accessToken == .exchanged(audience: "https://api.c.example", scopes: ["c:read", "c:write"]))
        #expect(registry.app(id: "d")?.accessToken == .exchanged(audience: "urn:partner:d", scopes: []))
    }

    @Test("A malformed accessToken member refuses the whole registry", arguments: [
        #""accessToken": "app""#,
        #""accessToken": "passthrough""#,
        #""accessToken": {"exchange": {"audience": ""}}"#,
        #""accessToken": {"exchange": {"audience": "https://x.example/a b"}}"#,
        #""accessToken": {"exchange": {"audience": "https://x.example", "scope": "a \"b"}}"#,
        #""accessToken": {"exchange": {}}"#,
        #""accessToken": {}"#,
    ])
    func malformedEntry(member: String) {
        let json = #"{"apps": [{"id": "a", "title": "A", "url": "https://a.example/", \#(member)}]}"#
        #expect(throws: RegistryError.self) { _ = try Registry(json: Data(json.utf8)) }
    }

    @Test("The development pass-through carries the app's token with development keys and mints nothing with production keys")
    func passThroughNeedsDevelopmentKeys() async throws {
        let provider = StubIdentityProvider.vouching()
        let development = LauncherService(
            signer: LauncherFixtures.signer, identityProvider: provider, cache: nil, tokenForwarding: .developmentPassThrough
        )
        let launch = try await development.launch(appID: "healthmagazin", accessToken: "app-token-1")
        let verified = try LaunchVerifier(keyring: LauncherFixtures.keyring, app: LauncherFixtures.magazin).verify(url: launch.url, now: Date())
        #expect(verified.claims.accessToken == "app-token-1")

        let production = LauncherService(
            signer: try LaunchSigner(keyring: try Self.productionKeyring(), registry: LauncherFixtures.registry),
            identityProvider: provider, cache: nil, tokenForwarding: .developmentPassThrough
        )
        do throws(LauncherError) {
            _ = try await production.launch(appID: "healthmagazin", accessToken: "app-token-1")
            Issue.record("passed the app's token on with production keys")
        } catch {
            #expect(error.code == .mintFailed)
        }
    }

    @Test("Without the pass-through, an app with no token entry gets an empty access_token, never the app's")
    func noneMeansEmpty() async throws {
        let service = LauncherFixtures.service(provider: StubIdentityProvider.vouching())
        let launch = try await service.launch(appID: "healthmagazin", accessToken: "app-token-2")
        let verified = try LaunchVerifier(keyring: LauncherFixtures.keyring, app: LauncherFixtures.magazin).verify(url: launch.url, now: Date())
        #expect(verified.claims.accessToken == "")
    }

    @Test("An entry asking for an exchanged token, with no exchanger configured, is 503 and nothing minted")
    func exchangeWithoutExchanger() async throws {
        let app = try WebApp(id: "x", title: "X", url: RegisteredURL("http://127.0.0.1:8080/x"), accessToken: .exchanged(audience: "urn:x", scopes: []))
        let service = LauncherService(
            signer: try LaunchSigner(keyring: LauncherFixtures.keyring, registry: try Registry(apps: [app])),
            identityProvider: StubIdentityProvider.vouching(), cache: nil
        )
        do throws(LauncherError) {
            _ = try await service.launch(appID: "x", accessToken: "app-token-3")
            Issue.record("minted without an exchanged token")
        } catch {
            #expect(error.code == .tokenExchangeFailed)
            #expect(error.httpStatus == 503)
        }
    }

    @Test("The log's subject reference is an HMAC under the launcher keyring: stable per keyring, not the bare hash")
    func subjectReferenceIsKeyed() async throws {
        let subject = "subject-Hm4-keyed"
        func reference(keyring: Keyring) async throws -> String {
            let capture = LogCapture()
            let service = LauncherService(
                signer: try LaunchSigner(keyring: keyring, registry: LauncherFixtures.registry),
                identityProvider: StubIdentityProvider.vouching(subject: subject), cache: nil, logger: capture.makeLogger()
            )
            _ = try await service.launch(appID: "healthmagazin", accessToken: "t")
            return try #require(capture.all.first { $0.message == "launch.minted" }?.metadata["subject_ref"])
        }
        let first = try await reference(keyring: LauncherFixtures.keyring)
        #expect(first.count == 16)
        #expect(try await reference(keyring: LauncherFixtures.keyring) == first)
        #expect(try await reference(keyring: try Self.productionKeyring()) != first)
        let bare = try SHA256.hash(Array(("webapp-launch subject\u{0}" + subject).utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        #expect(first != bare)
    }
}

/// ``JWKSRefreshState`` with its decisions as words, for readable expectations.
struct JWKSRefreshStateProbe {
    private var state: JWKSRefreshState<Int>
    private var version = 0

    init(lifetime: Duration, minimumRefetchInterval: Duration) {
        state = JWKSRefreshState(lifetime: lifetime, minimumRefetchInterval: minimumRefetchInterval)
    }

    mutating func decide(kid: String, now: ContinuousClock.Instant) -> String {
        switch state.decide(kid: kid, now: now) {
        case .use: "use"
        case .fetch: "fetch"
        case .waitForFetch: "wait"
        case .unknownKey: "unknown"
        case .unavailable: "unavailable"
        }
    }

    mutating func fetched(_ kids: Set<String>, now: ContinuousClock.Instant) {
        version += 1
        state.fetched(version, keyIDs: kids, now: now)
    }

    mutating func fetchFailed() { state.fetchFailed() }
}

/// The key-set refetch decisions, without a clock or a network.
@Suite("JWKS refetch bound")
struct JWKSRefreshStateTests {
    typealias State = JWKSRefreshStateProbe

    @Test("An unknown kid refetches at most once per interval; a known kid never waits; a failed first fetch is unavailable, not a refusal")
    func decisions() {
        var state = State(lifetime: .seconds(3600), minimumRefetchInterval: .seconds(30))
        let start = ContinuousClock.now
        #expect(state.decide(kid: "k1", now: start) == "fetch")
        #expect(state.decide(kid: "k1", now: start) == "wait")
        state.fetched(["k1"], now: start)
        #expect(state.decide(kid: "k1", now: start.advanced(by: .seconds(1))) == "use")
        // Unknown kid within the interval since the fetch began: refused without a fetch.
        #expect(state.decide(kid: "k2", now: start.advanced(by: .seconds(10))) == "unknown")
        #expect(state.decide(kid: "k3", now: start.advanced(by: .seconds(29))) == "unknown")
        // After the interval: one fetch, then refusals again.
        #expect(state.decide(kid: "k2", now: start.advanced(by: .seconds(31))) == "fetch")
        state.fetched(["k2"], now: start.advanced(by: .seconds(31)))
        #expect(state.decide(kid: "k2", now: start.advanced(by: .seconds(32))) == "use")
        #expect(state.decide(kid: "k9", now: start.advanced(by: .seconds(32))) == "unknown")
        // The rotated-away key is gone.
        #expect(state.decide(kid: "k1", now: start.advanced(by: .seconds(33))) == "unknown")

        var failing = State(lifetime: .seconds(3600), minimumRefetchInterval: .seconds(30))
        #expect(failing.decide(kid: "k1", now: start) == "fetch")
        failing.fetchFailed()
        #expect(failing.decide(kid: "k1", now: start.advanced(by: .seconds(5))) == "unavailable")
        #expect(failing.decide(kid: "k1", now: start.advanced(by: .seconds(31))) == "fetch")
    }

    @Test("A stale set is refetched once its lifetime is over; while refetching is not allowed, known keys go on working")
    func lifetime() {
        var state = State(lifetime: .seconds(60), minimumRefetchInterval: .seconds(30))
        let start = ContinuousClock.now
        _ = state.decide(kid: "k1", now: start)
        state.fetched(["k1"], now: start)
        #expect(state.decide(kid: "k1", now: start.advanced(by: .seconds(61))) == "fetch")
        state.fetchFailed()
        #expect(state.decide(kid: "k1", now: start.advanced(by: .seconds(62))) == "use")
    }
}
