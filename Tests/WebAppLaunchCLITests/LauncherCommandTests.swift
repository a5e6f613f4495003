import Foundation
import Testing
import WebAppLaunchTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `webapp-launch launcher`: starts, serves the catalogue, fails closed without its identity
/// provider, stops on SIGTERM, and refuses unsafe configurations. (The launch path against a
/// real provider is in WebAppLaunchLauncherTests.)
@Suite("launcher serves the catalogue, fails closed without a provider and refuses unsafe configuration")
struct LauncherCommandTests {
    @Test("launcher prints where it listens, serves the catalogue, answers 503 while the provider is down, and exits 0 on SIGTERM")
    func servesAndStops() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let deadProvider = try freeLoopbackPort()
        let launcher = try BackgroundSubprocess(
            CLI.executablePath,
            ["launcher", "--port", "0", "--issuer", "http://127.0.0.1:\(deadProvider)", "--provider-timeout", "2"],
            standardErrorPath: directory.path("launcher.log")
        )
        let banner = try await launcher.firstLine(within: .seconds(15)) { $0.hasPrefix("webapp-launch launcher on") }
        let address = try #require(banner.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }).description
        let catalogue = try await runSubprocess("/usr/bin/curl", ["-s", "--max-time", "5", address + "/v1/catalogue"], timeout: .seconds(10))
        #expect(catalogue.standardOutput.contains(#""id":"healthmagazin""#), "\(catalogue)")
        let token = "cli-launcher-token-Vb71qZ"
        let launch = try await runSubprocess("/usr/bin/curl", [
            "-s", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}",
            "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
            "--data", #"{"app":"healthmagazin"}"#, address + "/v1/launches",
        ], timeout: .seconds(15))
        #expect(launch.standardOutput == "503", "\(launch)")
        #expect(try await launcher.stop(with: SIGTERM, within: .seconds(10)) == 0, "log:\n\(launcher.standardError)")
        #expect(!launcher.standardError.contains(token), "the launcher log leaks the token")
        #expect(launcher.standardError.contains("provider_unavailable"))
    }

    @Test("launcher refuses unsafe or contradictory configuration with exit 2", arguments: [
        ["launcher", "--issuer", "http://login.example"],
        ["launcher", "--issuer", "https://login.example", "--required-scope", "webapps"],
        ["launcher", "--issuer", "https://login.example", "--introspection-endpoint", "https://login.example/introspect"],
        ["launcher", "--issuer", "https://login.example", "--host", "0.0.0.0"],
        ["launcher", "--issuer", "https://login.example", "--max-provider-requests", "0"],
        // Issue 30: a confirming mode needs the native app's client ids and the launcher's audience.
        ["launcher", "--issuer", "https://login.example", "--jwks-uri", "https://login.example/jwks"],
        ["launcher", "--issuer", "https://login.example", "--jwks-uri", "https://login.example/jwks", "--accepted-client-id", "app"],
        ["launcher", "--issuer", "https://login.example", "--jwks-uri", "http://login.example/jwks", "--accepted-client-id", "app", "--audience", "a"],
        ["launcher", "--issuer", "https://login.example", "--introspection-endpoint", "https://login.example/introspect", "--client-id", "l",
         "--accepted-client-id", "app"],
        ["launcher", "--issuer", "https://login.example", "--introspection-endpoint", "https://login.example/introspect", "--client-id", "l",
         "--jwks-uri", "https://login.example/jwks", "--accepted-client-id", "app", "--audience", "a"],
        ["launcher", "--issuer", "https://login.example", "--token-endpoint", "https://login.example/token"],
        ["launcher", "--issuer", "https://login.example", "--token-endpoint", "http://login.example/token", "--client-id", "l"],
        ["launcher"],
    ])
    func refuses(arguments: [String]) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.errorLines.count == 1, "\(result)")
    }

    @Test("With production keys, launcher refuses userinfo (it cannot tell whose token it is), the token pass-through, and an exchanged-token app without --token-endpoint")
    func refusesUnboundTokensWithProductionKeys() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory, development: false)
        let registry = directory.path("registry.json")
        try Data(#"{"apps": [{"id": "a", "title": "A", "url": "https://a.example/", "accessToken": {"exchange": {"audience": "urn:a"}}}]}"#.utf8)
            .write(to: URL(fileURLWithPath: registry))
        let base = ["launcher", "--keyring", keyring, "--registry", registry, "--issuer", "https://login.example"]
        let bound = ["--jwks-uri", "https://login.example/jwks", "--accepted-client-id", "app", "--audience", "urn:launcher"]
        for (arguments, words) in [
            (base, "userinfo"),
            (base + bound + ["--development-pass-through-token"], "development"),
            (base + bound, "--token-endpoint"),
        ] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 2, "\(result)")
            #expect(result.standardError.contains(words), "\(result)")
        }
    }
}
