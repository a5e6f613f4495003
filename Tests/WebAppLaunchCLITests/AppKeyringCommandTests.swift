import Foundation
import Testing
import WebAppLaunchTestSupport
import WebAppLaunch

#if canImport(Glibc)
import Glibc
#endif

/// `keygen --export-app` and the commands that take an app keyring (issue 13).
@Suite("keygen --export-app writes a partner's app keyring; it verifies and serves its own app only and never mints")
struct AppKeyringCommandTests {
    /// A development launcher keyring and the app keyring of healthmagazin exported from it.
    static func keyrings(in directory: TemporaryDirectory) async throws -> (launcher: String, app: String) {
        let launcher = try await makeKeyring(in: directory)
        let app = directory.path("healthmagazin.keyring.json")
        let exported = try await CLI.run(["keygen", "--export-app", "healthmagazin", "--keyring", launcher, "--out", app])
        guard exported.status == 0 else { throw SubprocessError(message: "export failed: \(exported)") }
        return (launcher, app)
    }

    @Test("keygen --export-app writes a 0600 app keyring with the launcher's kids and statuses and never overwrites a file")
    func exportWritesAppKeyring() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let launcher = try await makeKeyring(in: directory)
        #expect(try await CLI.run(["keygen", "--kid", "k2", "--keyring", launcher]).status == 0)
        #expect(try await CLI.run(["keygen", "--retire", "k1", "--keyring", launcher]).status == 0)
        let out = directory.path("app.json")

        let exported = try await CLI.run(["keygen", "--export-app", "healthmagazin", "--keyring", launcher, "--out", out])
        #expect(exported.status == 0, "\(exported)")
        #expect(exported.standardOutput == "wrote the app keyring of healthmagazin (k1 verify-only, k2 active) to \(out)\n")
        #expect(try permissions(of: out) == 0o600)
        let keyring = try Keyring(contentsOfFile: out)
        #expect(keyring.appID == "healthmagazin")
        #expect(keyring.keys.map(\.kid) == ["k1", "k2"])
        #expect(keyring.keys.map(\.status) == [.verifyOnly, .active])

        let before = try String(contentsOfFile: out, encoding: .utf8)
        let again = try await CLI.run(["keygen", "--export-app", "bonusprogramm", "--keyring", launcher, "--out", out])
        #expect(again.status == 2)
        #expect(again.errorLines.count == 1, "\(again)")
        #expect(again.standardError.contains("file_exists"), "\(again)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == before, "the existing file is left as it was")

        let fromApp = try await CLI.run(["keygen", "--export-app", "bonusprogramm", "--keyring", out, "--out", directory.path("other.json")])
        #expect(fromApp.status == 2)
        #expect(fromApp.standardError.contains("not_launcher_keyring"), "\(fromApp)")
        let addToApp = try await CLI.run(["keygen", "--kid", "k3", "--keyring", out])
        #expect(addToApp.status == 2)
        #expect(addToApp.standardError.contains("not_launcher_keyring"), "\(addToApp)")
        #expect(try await CLI.run(["keygen", "--export-app", "healthmagazin", "--keyring", launcher]).status == 2, "--out is required")
    }

    @Test("mint with an app keyring exits 2 with not_launcher_keyring, even for its own app", arguments: ["healthmagazin", "bonusprogramm"])
    func mintRefusesAppKeyring(app: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyrings = try await Self.keyrings(in: directory)
        let result = try await CLI.run(["mint", "--app", app, "--keyring", keyrings.app, "--registry", RepositoryFile.sampleRegistry] + TestUser.arguments)
        #expect(result.status == 2)
        #expect(result.standardOutput.isEmpty)
        #expect(result.errorLines.count == 1, "\(result)")
        #expect(result.standardError.contains("not_launcher_keyring"), "\(result)")
    }

    @Test("launcher with an app keyring exits 2 with not_launcher_keyring before it opens a connection")
    func launcherRefusesAppKeyring() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyrings = try await Self.keyrings(in: directory)
        let result = try await CLI.run(["launcher", "--port", "0", "--keyring", keyrings.app, "--registry", RepositoryFile.sampleRegistry, "--issuer", "http://127.0.0.1:9"])
        #expect(result.status == 2, "\(result)")
        #expect(result.standardOutput.isEmpty)
        #expect(result.errorLines.count == 1, "\(result)")
        #expect(result.standardError.contains("not_launcher_keyring"), "\(result)")
    }

    @Test("verify with an app keyring accepts its own app's launches, rejects another app's with exit 1 bad_signature, and refuses --app of another app with exit 2")
    func verifyWithAppKeyring() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyrings = try await Self.keyrings(in: directory)
        let own = try await CLI.mint(app: "healthmagazin", keyring: keyrings.launcher)
        let other = try await CLI.mint(app: "bonusprogramm", keyring: keyrings.launcher)

        #expect(try await CLI.run(["verify", own, "--keyring", keyrings.app]).status == 0)
        let rejected = try await CLI.run(["verify", other, "--keyring", keyrings.app])
        #expect(rejected.status == 1, "\(rejected)")
        #expect(rejected.errorLines == ["error: bad_signature: the token's MAC does not match"], "\(rejected)")
        let misconfigured = try await CLI.run(["verify", other, "--keyring", keyrings.app, "--app", "bonusprogramm"])
        #expect(misconfigured.status == 2, "\(misconfigured)")
        #expect(misconfigured.errorLines.count == 1)
        #expect(misconfigured.standardError.contains("app_mismatch"), "\(misconfigured)")
    }

    @Test("serve with an app keyring refuses another app with exit 2 (app_mismatch) and serves its own app at its public URL")
    func serveWithAppKeyring() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyrings = try await Self.keyrings(in: directory)
        let port = try freeLoopbackPort()

        let refused = try await CLI.run(["serve", "--port", "\(port)", "--keyring", keyrings.app, "--app", "bonusprogramm"], timeout: .seconds(10))
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.errorLines.count == 1, "\(refused)")
        #expect(refused.standardError.contains("app_mismatch"), "\(refused)")

        let server = try BackgroundSubprocess(
            CLI.executablePath,
            ["serve", "--port", "\(port)", "--metrics-address", "127.0.0.1:0", "--replay", "memory", "--keyring", keyrings.app, "--app", "healthmagazin",
             "--public-url", "http://127.0.0.1:\(port)/apps/healthmagazin"],
            standardErrorPath: directory.path("serve.log")
        )
        _ = try await server.firstLine(within: .seconds(15)) { $0.hasPrefix("webapp-launch serving") }
        let registry = directory.path("registry.json")
        let sample = try String(contentsOfFile: RepositoryFile.sampleRegistry, encoding: .utf8)
        try sample.replacingOccurrences(of: ":8080/", with: ":\(port)/").write(toFile: registry, atomically: true, encoding: .utf8)
        let own = try await CLI.mint(app: "healthmagazin", keyring: keyrings.launcher, registry: registry)
        #expect(try await httpStatus(of: own) == 303, "log:\n\(server.standardError)")
        #expect(try await httpStatus(of: "http://127.0.0.1:\(port)/") == 404, "no launcher console with an app keyring")
        #expect(try await server.stop(with: SIGTERM, within: .seconds(10)) == 0)
    }
}
