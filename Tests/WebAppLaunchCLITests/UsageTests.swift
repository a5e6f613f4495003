import Foundation
import Testing
import WebAppLaunchTestSupport

@Suite("Usage errors exit 2 with one line; help exits 0 with an example")
struct UsageTests {
    static let badInvocations: [[String]] = [
        ["frobnicate"],
        ["verify", "--bogus", "http://127.0.0.1:8080/apps/healthmagazin?launch=AAAA"],
        ["verify"],
        ["inspect"],
        ["inspect", "a", "b"],
        ["mint", "--app", "healthmagazin"],
        ["mint", "--app", "healthmagazin", "--access-token", "t", "--firstname", "A", "--lastname", "B", "--kvnumber", "A123456780", "--ttl", "soon"],
        ["keygen", "--keyring", "/nonexistent/keyring.json"],
        ["keygen", "--kid", "a", "--retire", "b", "--keyring", "/nonexistent/keyring.json"],
        ["keygen", "--kid", "k1"],
        ["serve", "--port", "0"],
        ["serve", "--port", "65536"],
        ["serve", "--log-level", "loud"],
        ["serve", "--public-url", "https://magazin.example/app"],
        ["serve", "--replay", "redis://localhost"],
        ["bridge", "--app"],
        ["bridge", "--app", "nosuchapp", "{}"],
        ["verify", "http://127.0.0.1:8080/apps/healthmagazin?launch=AAAA", "--keyring", "/nonexistent/keyring.json"],
    ]

    @Test("a bad invocation exits 2 with exactly one line on stderr and nothing on stdout", arguments: badInvocations)
    func badInvocation(arguments: [String]) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.standardOutput.isEmpty, "\(result)")
        #expect(result.errorLines.count == 1, "\(result)")
        #expect(result.standardError.hasPrefix("error: "), "\(result)")
    }

    @Test("--help on a subcommand exits 0 and shows its usage and an example", arguments: ["keygen", "mint", "verify", "inspect", "serve", "bridge"])
    func help(subcommand: String) async throws {
        let result = try await CLI.run([subcommand, "--help"])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("USAGE: webapp-launch \(subcommand)"))
        #expect(result.standardOutput.contains("Example"))
        #expect(result.standardError.isEmpty)
    }

    @Test("--help on the root command exits 0 and documents the exit codes")
    func rootHelp() async throws {
        let result = try await CLI.run(["--help"])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("Exit codes: 0 success, 1 rejected launch, 2 usage or configuration error"))
        for subcommand in ["keygen", "mint", "verify", "inspect", "serve", "bridge"] {
            #expect(result.standardOutput.contains(subcommand))
        }
    }
}
