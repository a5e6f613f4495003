import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport
import WebAppRegistry

/// The production shape for a partner (issue 13): a server holding one app's app keyring
/// serves that app, and refuses at startup to serve any other.
@Suite("A server with an app keyring serves its own app and refuses to be configured for another")
struct AppKeyringServerTests {
    static let magazinKeyring = try! Fixtures.keyring.exportingApp(Fixtures.magazin.id)

    static func configuration(keyring: Keyring, apps: [WebApp]) -> WebAppServerConfiguration {
        WebAppServerConfiguration(keyring: keyring, registry: Fixtures.registry, apps: apps.map(ServedApp.init))
    }

    static func code(_ body: () throws -> Void) -> KeyringError.Code? {
        do {
            try body()
            return nil
        } catch let error as KeyringError {
            return error.code
        } catch {
            Issue.record("an unexpected error: \(error)")
            return nil
        }
    }

    @Test("with the app keyring of its app, a launch the launcher minted opens the page, GET or POST", arguments: Transport.allCases)
    func servesOwnApp(transport: Transport) async throws {
        let server = try TestServer(configuration: Self.configuration(keyring: Self.magazinKeyring, apps: [Fixtures.magazin]))
        try await server.test { client in
            let launch = try await client.launch(Fixtures.token(for: Fixtures.magazin), at: Fixtures.magazin, via: transport)
            #expect(launch.status == .seeOther)
            let cookie = try #require(launch.sessionCookie?.value)
            #expect(try await client.get(Fixtures.cleanTarget(of: Fixtures.magazin), cookie: cookie).status == .ok)
        }
    }

    @Test("with the app keyring of its app, a launch minted for another app is refused as bad_signature")
    func refusesOtherAppsLaunch() async throws {
        let server = try TestServer(configuration: Self.configuration(keyring: Self.magazinKeyring, apps: [Fixtures.magazin]))
        try await server.test { client in
            // The bonus token, presented at the magazin path.
            let response = try await client.launch(Fixtures.token(for: Fixtures.bonus), at: Fixtures.magazin, via: .get)
            #expect(response.status == .unauthorized)
            #expect(response.setCookies.isEmpty)
        }
        #expect(server.logs.lines("launch.rejected", where: "code", is: "bad_signature").count == 1)
    }

    @Test("a server refuses at startup to serve another app with an app keyring (app_mismatch), alone or next to its own")
    func refusesAnotherApp() async throws {
        for apps in [[Fixtures.bonus], [Fixtures.magazin, Fixtures.bonus]] {
            let configuration = Self.configuration(keyring: Self.magazinKeyring, apps: apps)
            #expect(Self.code { _ = try WebAppServer(configuration: configuration, replayStore: InMemoryReplayStore(capacity: 64)) } == .appMismatch)
            var refused: KeyringError.Code?
            do { _ = try await WebAppServer.make(configuration: configuration) } catch let error as KeyringError { refused = error.code }
            #expect(refused == .appMismatch)
        }
    }

    @Test("the middleware refuses a session sealer of another app (app_mismatch); by default it seals for the verifier's app")
    func middlewareRefusesForeignSealer() throws {
        let verifier = try LaunchVerifier(keyring: Fixtures.keyring, app: Fixtures.magazin)
        let foreign = try SessionSealer(keyring: Fixtures.keyring, appID: Fixtures.bonus.id)
        #expect(Self.code {
            _ = try LaunchVerificationMiddleware<WebAppRequestContext>(verifier: verifier, replayStore: InMemoryReplayStore(capacity: 64), sessionSealer: foreign)
        } == .appMismatch)
        #expect(Self.code {
            _ = try LaunchVerificationMiddleware<WebAppRequestContext>(verifier: verifier, replayStore: InMemoryReplayStore(capacity: 64))
        } == nil)
    }

    @Test("a development app keyring never gets the launcher console: it cannot mint")
    func noConsoleWithAppKeyring() async throws {
        var configuration = Self.configuration(keyring: Self.magazinKeyring, apps: [Fixtures.magazin])
        configuration.demoUsers = try DevelopmentDefaults.demoUsers()
        #expect(Self.magazinKeyring.isDevelopment)
        #expect(!configuration.servesDevelopmentConsole)
        let status = try await TestServer(configuration: configuration).test { client in
            try await client.get("/").status
        }
        #expect(status == .notFound)
    }
}
