import Foundation
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppRegistry
import WebAppLaunchTestSupport

/// The defaults `serve` runs on are embedded in the binary (no walk up from `#filePath`), and
/// they must be exactly the files the repository ships in `keys/`.
@Suite("The embedded development defaults are the repository's keys/ files, byte for byte")
struct DevelopmentDefaultsTests {
    static let keys = repositoryRoot.appendingPathComponent("keys")

    @Test("keyring, registry and demo users match their files", arguments: [
        ("dev.keyring.json", DevelopmentDefaults.keyringJSON),
        ("registry.sample.json", DevelopmentDefaults.registryJSON),
        ("demo-users.json", DevelopmentDefaults.demoUsersJSON),
    ])
    func embeddedMatchesFile(file: String, embedded: String) throws {
        let shipped = try String(contentsOf: Self.keys.appendingPathComponent(file), encoding: .utf8)
        #expect(shipped.trimmingCharacters(in: .newlines) == embedded.trimmingCharacters(in: .newlines))
    }

    @Test("the embedded keyring is a development keyring and the registry and users parse")
    func embeddedParse() throws {
        #expect(try DevelopmentDefaults.keyring().isDevelopment)
        #expect(try DevelopmentDefaults.registry().apps.map(\.id) == ["healthmagazin", "bonusprogramm"])
        #expect(try DevelopmentDefaults.demoUsers().count == 4)
    }
}

@Suite("An app keyring exported from the development keys is development keys, with or without its flag")
struct DevelopmentAppKeyringTests {
    @Test("an exported development app keyring without its flag is still recognised, and the server refuses it off loopback")
    func flaglessAppKeyring() throws {
        let exported = try DevelopmentDefaults.keyring().exportingApp("healthmagazin")
        let flagless = try Keyring(appKeys: exported.keys, forApp: "healthmagazin", isDevelopment: false)
        #expect(flagless.isDevelopment, "the flag alone says production, the keys say development")
        let app = try DevelopmentDefaults.registry().app(id: "healthmagazin")!
        var configuration = WebAppServerConfiguration(keyring: flagless, registry: try DevelopmentDefaults.registry(), apps: [ServedApp(app)])
        configuration.host = "0.0.0.0"
        let error = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(error?.code == .developmentKeys)
    }

    @Test("a production app keyring is not development keys")
    func productionAppKeyring() throws {
        let launcher = try Keyring(keys: [KeyringKey(kid: "prod", status: .active, secret: KeySecret(bytes: (0..<32).map { UInt8($0) &* 7 &+ 3 }))], isDevelopment: false)
        #expect(!(try launcher.exportingApp("healthmagazin")).isDevelopment)
    }
}
