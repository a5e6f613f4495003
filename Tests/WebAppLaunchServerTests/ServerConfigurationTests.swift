import Foundation
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppRegistry

@Suite("The server refuses unsafe configurations before it starts")
struct ServerConfigurationTests {
    static func reason(of configuration: WebAppServerConfiguration) -> String? {
        do {
            try configuration.validate()
            return nil
        } catch {
            return error.reason
        }
    }

    @Test("the fixture configuration, development keys on loopback, is accepted")
    func loopbackDevelopmentIsAccepted() {
        #expect(Self.reason(of: Fixtures.configuration()) == nil)
        #expect(Fixtures.configuration().bindsLoopbackOnly)
    }

    @Test("development keys on a non-loopback bind address are refused", arguments: ["0.0.0.0", "::", "192.168.1.10", "example.org"])
    func developmentKeysOnPublicBind(host: String) throws {
        var configuration = Fixtures.configuration()
        configuration.host = host
        let reason = try #require(Self.reason(of: configuration))
        #expect(reason.contains("development"))
        #expect(reason.contains(host))
    }

    @Test("development keys on loopback bind addresses are accepted", arguments: ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
    func developmentKeysOnLoopbackBind(host: String) {
        var configuration = Fixtures.configuration()
        configuration.host = host
        #expect(Self.reason(of: configuration) == nil)
    }

    @Test("development keys for a non-loopback public URL are refused, even when binding loopback")
    func developmentKeysForPublicURL() throws {
        let app = try WebApp(id: "healthmagazin", title: "Magazin", url: RegisteredURL("https://magazin.example/apps/healthmagazin"))
        let configuration = WebAppServerConfiguration(keyring: Fixtures.keyring, registry: try Registry(apps: [app]), apps: [ServedApp(app)])
        let reason = try #require(Self.reason(of: configuration))
        #expect(reason.contains("magazin.example"))
        // The same URL with production keys is fine.
        var production = configuration
        production.keyring = try Keyring(keys: [KeyringKey(kid: "prod", status: .active, secret: Fixtures.secret(0x50))], isDevelopment: false)
        #expect(Self.reason(of: production) == nil)
    }

    @Test("a keyring without an active key is refused", arguments: [KeyStatus.verifyOnly, .revoked])
    func noActiveKey(status: KeyStatus) throws {
        var configuration = Fixtures.configuration()
        configuration.keyring = try Keyring(keys: [KeyringKey(kid: "only", status: status, secret: Fixtures.secret(0x60))], isDevelopment: true)
        let reason = try #require(Self.reason(of: configuration))
        #expect(reason.contains("active key"))
    }

    @Test("two apps on the same path are refused, even on different hosts")
    func duplicatePaths() throws {
        let other = try WebApp(id: "copy", title: "Copy", url: RegisteredURL("http://localhost:8080/apps/healthmagazin"))
        var configuration = Fixtures.configuration()
        configuration.registry = try Registry(apps: [Fixtures.magazin, other])
        configuration.apps = [ServedApp(Fixtures.magazin), ServedApp(other)]
        let reason = try #require(Self.reason(of: configuration))
        #expect(reason.contains("/apps/healthmagazin"))
    }

    @Test("apps under /healthz or /console, no apps, bad ports and bad session lifetimes are refused")
    func otherRefusals() throws {
        let shadow = try WebApp(id: "shadow", title: "Shadow", url: RegisteredURL("http://127.0.0.1:8080/console"))
        var shadowing = Fixtures.configuration()
        shadowing.apps = [ServedApp(shadow)]
        #expect(Self.reason(of: shadowing) != nil)

        var empty = Fixtures.configuration()
        empty.apps = []
        #expect(Self.reason(of: empty) != nil)

        for port in [-1, 65536] {
            var configuration = Fixtures.configuration()
            configuration.port = port
            #expect(Self.reason(of: configuration) != nil)
        }
        for lifetime: UInt64 in [0, 59, 24 * 3600 + 1] {
            var configuration = Fixtures.configuration()
            configuration.sessionLifetime = lifetime
            #expect(Self.reason(of: configuration) != nil)
        }
    }

    @Test("WebAppServer.make validates before opening anything")
    func makeValidates() async throws {
        var configuration = Fixtures.configuration()
        configuration.host = "0.0.0.0"
        await #expect(throws: ConfigurationError.self) {
            _ = try await WebAppServer.make(configuration: configuration)
        }
    }
}
