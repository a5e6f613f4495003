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

/// `LauncherApplication` (the launcher as the CLI runs it) and the edge in front of the routes
/// generated from `openapi.yaml`.
@Suite("Launcher application and its generated routes", .traced)
struct LauncherApplicationTests {
    static func configuration() -> LauncherConfiguration {
        LauncherConfiguration(
            port: 0,
            keyring: LauncherFixtures.keyring,
            registry: LauncherFixtures.registry,
            issuer: URL(string: "http://127.0.0.1:9")!
        )
    }

    @Test("a client connection that sends nothing is closed after the idle timeout (as serve and the gate close theirs); a request is still served")
    func silentConnectionIsClosed() async throws {
        var configuration = Self.configuration()
        configuration.idleTimeout = .milliseconds(500)
        let launcher = try LauncherApplication(configuration: configuration)
        try await launcher.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let lifetime = try await silentConnectionLifetime(port: port)
            #expect(lifetime != nil, "the launcher never closed the silent connection")
            if let lifetime { #expect(lifetime < .seconds(3)) }
            // The test client's own connection was idle as long: a fresh one asks.
            #expect(try await rawGet("/v1/catalogue", port: port).hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test("The application serves the catalogue, and its provider client is shut down when the service group stops")
    func applicationOwnsItsClient() async throws {
        let launcher = try LauncherApplication(configuration: Self.configuration())
        try await launcher.makeApplication().test(.live) { client in
            try await client.execute(uri: "/v1/catalogue", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] == launcher.service.catalogue.etag)
                #expect(Data(response.body.readableBytesView) == launcher.service.catalogue.body)
            }
            // Without a token nothing reaches the provider: the edge answers.
            try await client.postLaunch(token: nil, body: #"{"app":"healthmagazin"}"#) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="webapp-launch""#)
                #expect(response.headers[.cacheControl] == "no-store")
            }
        }
        TestTrace.note("application: stopped")
        // Shut down by the service group: a second shutdown is refused.
        await #expect(throws: HTTPClientError.alreadyShutdown) { try await launcher.httpClient.shutdown() }
    }

    @Test("An app keyring cannot run a launcher: refused before any HTTP client exists")
    func appKeyringRefused() throws {
        var configuration = Self.configuration()
        configuration.keyring = try LauncherFixtures.keyring.exportingApp("healthmagazin")
        #expect(throws: KeyringError.self) { _ = try LauncherApplication(configuration: configuration) }
    }

    @Test("An Accept naming no JSON still gets the JSON answers, with application/json and nosniff", arguments: [
        "text/html", "image/*;q=0.1", "not a media type",
    ])
    func acceptIsIgnored(accept: String) async throws {
        let service = LauncherFixtures.service(provider: StubIdentityProvider.vouching())
        try await LauncherFixtures.application(service).test(.router) { client in
            try await client.execute(uri: "/v1/catalogue", method: .get, headers: [.accept: accept]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
            }
            var headers = LauncherFixtures.launchHeaders(token: "t0ken")
            headers[.accept] = accept
            try await client.execute(uri: "/v1/launches", method: .post, headers: headers, body: ByteBuffer(string: #"{"app":"healthmagazin"}"#)) { response in
                #expect(response.status == .created)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.cacheControl] == "no-store")
                let object = LauncherFixtures.json(response.body)
                #expect(Set(object.keys) == ["url", "expires_at"])
            }
        }
    }

    @Test("A method the document does not list for a path is 405 with Allow, never 404 or the handler", arguments: [
        ("/v1/catalogue", HTTPRequest.Method.post, "GET"), ("/v1/catalogue", .delete, "GET"),
        ("/v1/launches", .get, "POST"), ("/v1/launches", .trace, "POST"), ("/v1/launches", .put, "POST"), ("/v1/launches", HTTPRequest.Method("QUERY")!, "POST"),
    ])
    func undeclaredMethodIs405(path: String, method: HTTPRequest.Method, allow: String) async throws {
        let provider = StubIdentityProvider.vouching()
        try await LauncherFixtures.application(LauncherFixtures.service(provider: provider)).test(.router) { client in
            try await client.execute(uri: path, method: method, headers: LauncherFixtures.launchHeaders(token: "t0ken")) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == allow)
            }
        }
        #expect(provider.callCount == 0)
    }

    @Test("The 201's expires_at is the expiry in the minted token, to the second")
    func expiryIsTheTokens() async throws {
        let now = Date(timeIntervalSince1970: 1_795_000_123)
        let service = LauncherFixtures.service(provider: StubIdentityProvider.vouching())
        let app = Application(router: LauncherRouter.make(service: service, clock: { now }), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.router) { client in
            try await client.postLaunch(token: "t0ken", body: #"{"app":"bonusprogramm"}"#) { response in
                #expect(response.status == .created)
                let object = LauncherFixtures.json(response.body)
                let url = try #require(object["url"] as? String)
                let verified = try LaunchVerifier(keyring: LauncherFixtures.keyring, app: LauncherFixtures.bonus).verify(url: url, now: now)
                let expiry = try #require(object["expires_at"] as? String)
                #expect(try Date(expiry, strategy: .iso8601) == Date(timeIntervalSince1970: TimeInterval(verified.header.expiresAt)))
            }
        }
    }
}
