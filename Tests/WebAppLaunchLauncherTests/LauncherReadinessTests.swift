import AsyncHTTPClient
import Foundation
import Synchronization
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WebAppLaunch
import WebAppLaunchLauncher
import WebAppLaunchReload
import WebAppRegistry

/// The launcher's `/readyz` (issue 35): ready only when the identity provider's discovery
/// document is loaded, and never again once shutdown began; and its signer and catalogue
/// reload as one.
@Suite("Launcher: /readyz follows the provider and shutdown; signer and catalogue reload together")
struct LauncherReadinessTests {
    static func readyz(_ service: LauncherService, readiness: ReadinessSwitch = ReadinessSwitch()) async throws -> HTTPResponse.Status {
        let application = Application(router: LauncherRouter.make(service: service, readiness: readiness))
        return try await application.test(.router) { client in
            try await client.execute(uri: "/readyz", method: .get) { $0.status }
        }
    }

    @Test("a provider whose discovery document loads is ready; shutdown turns readiness off")
    func readyWithDiscovery() async throws {
        let fake = ProviderFailureTests.fakeProvider()
        try await fake.test(.live) { fakeClient in
            let port = try #require(fakeClient.port)
            let client = IdentityProviderHTTPClient.make()
            let provider = OpenIDUserInfoProvider(issuer: URL(string: "http://127.0.0.1:\(port)")!, httpClient: client)
            let service = LauncherFixtures.service(provider: provider)
            let readiness = ReadinessSwitch()
            #expect(try await Self.readyz(service, readiness: readiness) == .ok)
            readiness.beginDraining()
            #expect(try await Self.readyz(service, readiness: readiness) == .serviceUnavailable)
            try await client.shutdown()
        }
    }

    @Test("a provider that cannot be reached is not ready (503)")
    func notReadyWithoutProvider() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let client = IdentityProviderHTTPClient.make(connectTimeout: .seconds(1), readTimeout: .seconds(2))
        let provider = OpenIDUserInfoProvider(issuer: URL(string: "http://127.0.0.1:\(listener.port)")!, httpClient: client, timeout: .milliseconds(300))
        #expect(try await Self.readyz(LauncherFixtures.service(provider: provider)) == .serviceUnavailable)
        try await client.shutdown()
    }

    @Test("with JWT access tokens: ready once the issuer's key set is loaded; a silent key-set URL is not ready")
    func readyWithKeySet() async throws {
        let router = Router()
        router.get("jwks") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"keys": []}"#)))
        }
        let policy = NativeAppTokenPolicy(clientIDs: ["native-app"], audience: "webapp-launcher")
        let client = IdentityProviderHTTPClient.make(connectTimeout: .seconds(1), readTimeout: .seconds(2))
        try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { keySet in
            let port = try #require(keySet.port)
            let provider = JWTAccessTokenProvider(issuer: "http://127.0.0.1:\(port)", jwksURL: URL(string: "http://127.0.0.1:\(port)/jwks")!, policy: policy, httpClient: client)
            #expect(try await Self.readyz(LauncherFixtures.service(provider: provider)) == .ok)
        }
        let listener = try SilentListener()
        defer { listener.close() }
        let silent = JWTAccessTokenProvider(
            issuer: "http://127.0.0.1:\(listener.port)", jwksURL: URL(string: "http://127.0.0.1:\(listener.port)/jwks")!,
            policy: policy, httpClient: client, timeout: .milliseconds(300)
        )
        #expect(try await Self.readyz(LauncherFixtures.service(provider: silent)) == .serviceUnavailable)
        try await client.shutdown()
    }

    @Test("a reload swaps signer and catalogue together; a refused one keeps both")
    func mintingReloads() async throws {
        let other = try WebApp(id: "news", title: "News", url: RegisteredURL("http://127.0.0.1:8080/apps/news"))
        let registries = [LauncherFixtures.registry, try Registry(apps: LauncherFixtures.registry.apps + [other])]
        let step = ManagedStep()
        let minting = ReloadableConfiguration(name: "keyring+registry", initial: MintingConfiguration(signer: LauncherFixtures.signer)) {
            guard let registry = step.next() else { throw RegistryDidNotLoad() }
            return MintingConfiguration(signer: try LaunchSigner(keyring: LauncherFixtures.keyring, registry: registry))
        }
        let service = LauncherService(minting: minting, identityProvider: StubIdentityProvider.vouching())
        let before = service.catalogue.etag
        step.set(registries[1])
        #expect(await minting.reload().isReloaded)
        #expect(catalogueAppIDs(service.catalogue).contains("news"))
        #expect(service.catalogue.etag != before)
        #expect(service.signer.registry.app(id: "news") != nil)
        step.set(nil)
        #expect(!(await minting.reload()).isReloaded)
        #expect(catalogueAppIDs(service.catalogue).contains("news"))
    }
}

/// The registry a test's loader returns next (`nil`: the load fails).
final class ManagedStep: Sendable {
    private let value = Mutex<Registry?>(nil)
    func set(_ registry: Registry?) { value.withLock { $0 = registry } }
    func next() -> Registry? { value.withLock { $0 } }
}

struct RegistryDidNotLoad: Error {}

/// The app ids of a catalogue, read from the JSON body it serves.
private func catalogueAppIDs(_ catalogue: Catalogue) -> [String] {
    let object = try? JSONSerialization.jsonObject(with: catalogue.body) as? [String: Any]
    return (object?["apps"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
}
