import Foundation
import Testing
import WebAppLaunchTestSupport

@Suite("inspect shows the clear header and nothing of the claims")
struct InspectCommandTests {
    @Test("inspect prints version, mode, kid, app and audience, and never the names or the access token", arguments: ["sealed", "signed"])
    func header(mode: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let url = try await CLI.mint(keyring: keyring, ["--mode", mode])

        for result in [try await CLI.run(["inspect", url]), try await CLI.run(["inspect", "-"], input: url + "\n"), try await CLI.run(["inspect", token(of: url)])] {
            #expect(result.status == 0, "\(result)")
            let output = result.standardOutput
            #expect(output.hasPrefix("UNVERIFIED header"))
            #expect(output.contains("  version   2\n"))
            #expect(output.contains("  mode      \(mode)\n"))
            #expect(output.contains("  kid       k1\n"))
            #expect(output.contains("  app       healthmagazin\n"))
            #expect(output.contains("  audience  http://127.0.0.1:8080/apps/healthmagazin\n"))
            for secret in [TestUser.accessToken, TestUser.firstName, TestUser.lastName, TestUser.kvnumber] {
                #expect(!output.contains(secret), "inspect printed \(secret)")
                #expect(!result.standardError.contains(secret))
            }
        }
    }

    @Test("inspect needs no keyring: a launch from an unknown key still shows its header")
    func noKeyring() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try await CLI.mint(keyring: try makeKeyring(in: directory))
        directory.remove()
        let result = try await CLI.run(["inspect", url])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("kid       k1"))
    }

    @Test("inspect of text that is not a launch exits 1 with the error code", arguments: ["http://127.0.0.1:8080/apps/healthmagazin?launch=AAAA", "!!!"])
    func garbage(text: String) async throws {
        let result = try await CLI.run(["inspect", text])
        #expect(result.status == 1, "\(result)")
        #expect(result.standardOutput.isEmpty)
        #expect(result.errorLines.count == 1)
        #expect(result.standardError.hasPrefix("error: malformed"))
    }
}
