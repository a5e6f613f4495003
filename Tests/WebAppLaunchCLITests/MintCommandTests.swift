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

    @Test("mint --count --distinct-users --output json prints one verifiable launch per line, each for its own valid user")
    func distinctBatch() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let result = try await CLI.run(
            ["mint", "--app", "healthmagazin", "--keyring", keyring, "--registry", RepositoryFile.sampleRegistry,
             "--count", "5", "--distinct-users", "--output", "json"] + TestUser.arguments
        )
        #expect(result.status == 0, "\(result)")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 5)
        let objects = try lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        }
        for key in ["url", "token", "access_token", "firstname", "lastname", "kvnumber"] {
            #expect(Set(objects.map { $0[key] }).count == 5, "every launch has its own \(key)")
        }
        for object in objects {
            let url = try #require(object["url"])
            #expect(url.hasSuffix("launch=" + (object["token"] ?? "-")))
            let verified = try await CLI.run(["verify", url, "--keyring", keyring, "--json", "--reveal"])
            #expect(verified.status == 0, "\(verified)")
            // The claims in the token are the user the line names.
            for key in ["access_token", "firstname", "lastname", "kvnumber"] {
                #expect(verified.standardOutput.contains(try #require(object[key])), "\(key) in \(verified)")
            }
        }
    }

    @Test("mint --count without --distinct-users prints distinct launches for the same user; bad counts and --form with a batch are refused")
    func sameUserBatch() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let base = ["mint", "--app", "healthmagazin", "--keyring", keyring, "--registry", RepositoryFile.sampleRegistry] + TestUser.arguments
        let result = try await CLI.run(base + ["--count", "3"])
        let urls = result.standardOutput.split(separator: "\n")
        #expect(result.status == 0 && urls.count == 3 && Set(urls).count == 3, "\(result)")
        for url in urls {
            let verified = try await CLI.run(["verify", String(url), "--keyring", keyring, "--json", "--reveal"])
            #expect(verified.status == 0 && verified.standardOutput.contains(TestUser.accessToken), "\(verified)")
        }
        for refused in [["--count", "0"], ["--count", "10000001"], ["--count", "2", "--form"], ["--output", "json", "--form"], ["--output", "xml"]] {
            let refusal = try await CLI.run(base + refused)
            #expect(refusal.status == 2 && refusal.standardOutput.isEmpty, "\(refused): \(refusal)")
        }
    }
}
