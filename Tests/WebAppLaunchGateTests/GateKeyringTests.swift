import Testing
import WebAppLaunch
import WebAppLaunchGate
import WebAppRegistry

/// Issue 37: a partner holds its app keyring only; the gate refuses a launcher keyring, whose
/// root secrets could mint for every app (the public development keyring aside, on loopback).
@Suite("The gate takes an app keyring, never a production launcher keyring")
struct GateKeyringTests {
    static let publicURL = try! RegisteredURL("https://magazin.example/")

    @Test("a production launcher keyring is refused; its exported app keyring is accepted", arguments: [
        GateConfiguration.Mode.authRequest, .reverseProxy(upstream: try! GateUpstream("http://127.0.0.1:9000")),
    ])
    func launcherKeyringRefused(mode: GateConfiguration.Mode) throws {
        let launcher = GateFixtures.keyring
        #expect(launcher.appID == nil && !launcher.isDevelopment)
        let refused = GateConfiguration(appID: GateFixtures.appID, publicURL: Self.publicURL, keyring: launcher, mode: mode)
        let error = #expect(throws: ConfigurationError.self) { try refused.validate() }
        #expect(error?.reason.contains("app keyring") == true)
        let accepted = GateConfiguration(appID: GateFixtures.appID, publicURL: Self.publicURL, keyring: GateFixtures.appKeyring, mode: mode)
        try accepted.validate()
    }
}
