import Synchronization
import Testing
import WebAppLaunch
import WebAppLaunchGate
import WebAppLaunchMiddleware
import WebAppLaunchReload
import WebAppRegistry

/// The gate's reload (issue 35): its keyring is read again with every check of startup
/// (``GateConfiguration/validate()`` and the verifier's); a keyring that would not start
/// keeps the old one.
@Suite("The gate reloads its keyring only when it would start with it")
struct GateReloadTests {
    static let publicURL = try! RegisteredURL("https://magazin.example/")

    /// What the keyring source returns on the next reload.
    final class Source: Sendable {
        let next: Mutex<Keyring>
        init(_ keyring: Keyring) { next = Mutex(keyring) }
    }

    static func gate(_ source: Source) throws -> WebAppGate {
        let configuration = GateConfiguration(
            appID: GateFixtures.appID, publicURL: publicURL, keyring: source.next.withLock { $0 }, mode: .authRequest
        )
        return try WebAppGate(configuration: configuration, replayStore: InMemoryReplayStore()) {
            source.next.withLock { $0 }
        }
    }

    @Test("a launcher keyring, an app keyring of another app, or development keys off loopback are refused; the old keyring stays", arguments: [
        "launcher keyring", "another app", "development keys",
    ])
    func refuses(what: String) async throws {
        let source = Source(GateFixtures.appKeyring)
        let gate = try Self.gate(source)
        let refused: Keyring
        switch what {
        case "launcher keyring": refused = GateFixtures.keyring
        case "another app": refused = try GateFixtures.keyring.exportingApp("bonus")
        default: refused = try Keyring(keys: GateFixtures.keyring.keys, isDevelopment: true).exportingApp(GateFixtures.appID)
        }
        source.next.withLock { $0 = refused }
        let outcome = await gate.verification.reload()
        #expect(!outcome.isReloaded, "\(what) was swapped in")
        #expect(gate.verification.generation == 0)
    }

    @Test("a rotated app keyring of the same app is swapped in")
    func swapsRotated() async throws {
        let source = Source(GateFixtures.appKeyring)
        let gate = try Self.gate(source)
        let rotated = try GateFixtures.keyring.adding(KeyringKey(kid: "gate-next", status: .active, secret: try KeySecret.generate()))
        source.next.withLock { $0 = try! rotated.exportingApp(GateFixtures.appID) }
        #expect(await gate.verification.reload() == .reloaded(generation: 1))
    }
}
