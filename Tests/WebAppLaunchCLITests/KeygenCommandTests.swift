import Foundation
import Testing
import WebAppLaunchTestSupport
import WebAppLaunch

#if canImport(Glibc)
import Glibc
#endif

@Suite("keygen creates and rotates keyring files that mint and verify use")
struct KeygenCommandTests {
    @Test("keygen writes a 0600 development keyring with one active key and refuses a duplicate kid")
    func createsKeyring() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("keyring.json")

        let created = try await CLI.run(["keygen", "--kid", "k1", "--keyring", path, "--development"])
        #expect(created.status == 0, "\(created)")
        #expect(created.standardOutput.contains("added key k1 (active"))
        #expect(try permissions(of: path) == 0o600)
        let keyring = try Keyring(contentsOfFile: path)
        #expect(keyring.isDevelopment)
        #expect(keyring.keys.map(\.kid) == ["k1"])
        #expect(keyring.keys.map(\.status) == [.active])

        let duplicate = try await CLI.run(["keygen", "--kid", "k1", "--keyring", path])
        #expect(duplicate.status == 2)
        #expect(duplicate.errorLines.count == 1, "\(duplicate)")
        #expect(duplicate.standardError.contains("already"))
        #expect(try Keyring(contentsOfFile: path).keys.count == 1, "a refused keygen leaves the file unchanged")
    }

    @Test("a second key becomes the signing key; --retire makes a key verify-only and --revoke revokes it")
    func rotatesKeys() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeKeyring(in: directory)
        let byFirstKey = try await CLI.mint(keyring: path)

        #expect(try await CLI.run(["keygen", "--kid", "k2", "--keyring", path]).status == 0)
        #expect(try Keyring(contentsOfFile: path).signingKey?.kid == "k2")
        #expect(try await CLI.run(["inspect", try await CLI.mint(keyring: path)]).standardOutput.contains("kid       k2"))

        let retired = try await CLI.run(["keygen", "--retire", "k1", "--keyring", path])
        #expect(retired.status == 0, "\(retired)")
        #expect(retired.standardOutput.contains("k1 is now verify-only"))
        #expect(try Keyring(contentsOfFile: path).key(kid: "k1")?.status == .verifyOnly)
        #expect(try permissions(of: path) == 0o600)
        #expect(try await CLI.run(["verify", byFirstKey, "--keyring", path]).status == 0, "a retired key still verifies")

        let revoked = try await CLI.run(["keygen", "--revoke", "k1", "--keyring", path])
        #expect(revoked.status == 0, "\(revoked)")
        #expect(try Keyring(contentsOfFile: path).key(kid: "k1")?.status == .revoked)
        let rejected = try await CLI.run(["verify", byFirstKey, "--keyring", path])
        #expect(rejected.status == 1)
        #expect(rejected.errorLines.count == 1)
        #expect(rejected.standardError.contains("revoked_key"))
    }

    @Test("with no active key left, mint refuses with exit 2 and no_signing_key")
    func mintNeedsActiveKey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeKeyring(in: directory)
        #expect(try await CLI.run(["keygen", "--retire", "k1", "--keyring", path]).status == 0)

        let result = try await CLI.run(["mint", "--app", "healthmagazin", "--keyring", path, "--registry", RepositoryFile.sampleRegistry] + TestUser.arguments)
        #expect(result.status == 2)
        #expect(result.standardOutput.isEmpty)
        #expect(result.errorLines.count == 1)
        #expect(result.standardError.contains("no_signing_key"))
    }

    @Test("retiring or revoking an unknown kid, or a missing keyring, exits 2 with one line", arguments: ["--retire", "--revoke"])
    func unknownKid(flag: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missing = try await CLI.run(["keygen", flag, "k1", "--keyring", directory.path("none.json")])
        #expect(missing.status == 2)
        #expect(missing.errorLines.count == 1)
        #expect(!FileManager.default.fileExists(atPath: directory.path("none.json")))

        let path = try await makeKeyring(in: directory)
        let unknown = try await CLI.run(["keygen", flag, "nobody", "--keyring", path])
        #expect(unknown.status == 2)
        #expect(unknown.errorLines.count == 1)
        #expect(unknown.standardError.contains("unknown_kid"))
    }

    @Test("a production keyring from keygen works at mode 0600 and is refused by mint and verify at 0644")
    func productionKeyringPermissions() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await makeKeyring(in: directory, development: false)
        #expect(try permissions(of: path) == 0o600)
        #expect(try Keyring(contentsOfFile: path).isDevelopment == false)
        let url = try await CLI.mint(keyring: path)
        #expect(try await CLI.run(["verify", url, "--keyring", path]).status == 0)

        #expect(chmod(path, 0o644) == 0)
        let refusals = [
            try await CLI.run(["mint", "--app", "healthmagazin", "--keyring", path, "--registry", RepositoryFile.sampleRegistry] + TestUser.arguments),
            try await CLI.run(["verify", url, "--keyring", path]),
        ]
        for result in refusals {
            #expect(result.status == 2, "\(result)")
            #expect(result.standardOutput.isEmpty)
            #expect(result.errorLines.count == 1, "\(result)")
            #expect(result.standardError.contains("insecure_permissions"))
        }
    }
}
