import Foundation
import Testing
import WebAppLaunchTestSupport

@Suite("mint prints launches only for registered apps and valid users")
struct MintCommandTests {
    @Test("mint --form prints a self-submitting form that POSTs a verifiable launch to the registered URL", arguments: [
        ("healthmagazin", "http://127.0.0.1:8080/apps/healthmagazin"),
        ("bonusprogramm", "http://127.0.0.1:8080/apps/bonusprogramm?tenant=demo"),
    ])
    func form(app: String, registered: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let result = try await CLI.run(["mint", "--app", app, "--keyring", keyring, "--registry", RepositoryFile.sampleRegistry, "--form"] + TestUser.arguments)
        #expect(result.status == 0, "\(result)")
        let html = result.standardOutput
        #expect(html.hasPrefix("<!doctype html>"))
        #expect(html.contains(#"<form method="post" action="\#(registered)">"#))
        #expect(html.contains("document.forms[0].submit()"))
        #expect(!html.contains("launch="), "the token travels in the body, not the action URL")
        let value = try #require(html.firstRange(of: #"name="launch" value=""#))
        let launch = html[value.upperBound...].prefix { $0 != "\"" }
        #expect(launch.count > 100)
        let url = registered + (registered.contains("?") ? "&" : "?") + "launch=" + launch
        #expect(try await CLI.run(["verify", url, "--keyring", keyring]).status == 0)
    }

    @Test("mint refuses bad input with exit 2, one line on stderr and nothing on stdout", arguments: [
        (["--kvnumber", "A123456781"], "invalid_claims"),
        (["--kvnumber", "123456789"], "invalid_claims"),
        (["--app", "nosuchapp"], "unknown_app"),
        (["--ttl", "301"], "lifetime_too_long"),
        (["--ttl", "0"], "invalid_lifetime"),
        (["--app", "nosuchapp", "--ttl", "0"], "unknown_app"),
        (["--app", "nosuchapp", "--ttl", "301"], "unknown_app"),
        (["--ttl", "-1"], "--ttl"),
        (["--mode", "bogus"], "--mode"),
        (["--access-token", "has space"], "invalid_claims"),
    ])
    func refusals(override: [String], expected: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        // Later options win in swift-argument-parser, so the override replaces the default.
        let arguments = ["mint", "--app", "healthmagazin", "--keyring", keyring, "--registry", RepositoryFile.sampleRegistry] + TestUser.arguments + override
        let result = try await CLI.run(arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.standardOutput.isEmpty)
        #expect(result.errorLines.count == 1, "\(result)")
        #expect(result.standardError.contains(expected), "\(result)")
    }

    @Test("mint with --ttl 300 is accepted and the header expires 300 s after issue")
    func maximumLifetime() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let url = try await CLI.mint(keyring: keyring, ["--ttl", "300"])
        let result = try await CLI.run(["verify", url, "--keyring", keyring, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let formatter = ISO8601DateFormatter()
        let issued = try #require(formatter.date(from: object["issued"] as? String ?? ""))
        let expires = try #require(formatter.date(from: object["expires"] as? String ?? ""))
        #expect(expires.timeIntervalSince(issued) == 300)
    }

    @Test("with no --keyring or --registry, mint uses the shipped development keyring and sample registry")
    func developmentDefaults() async throws {
        let result = try await CLI.run(["mint", "--app", "healthmagazin"] + TestUser.arguments)
        #expect(result.status == 0, "\(result)")
        let url = result.standardOutput.trimmingCharacters(in: .newlines)
        #expect(url.hasPrefix("http://127.0.0.1:8080/apps/healthmagazin?launch="))
        #expect(try await CLI.run(["verify", url]).status == 0)
        #expect(try await CLI.run(["verify", url, "--keyring", RepositoryFile.developmentKeyring]).status == 0)
    }
}
