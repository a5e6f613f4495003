import Foundation
import Testing
import WebAppLaunchTestSupport
import WebAppLaunch
import WebAppRegistry

@Suite("verify accepts what mint produced and shows the access token only when asked")
struct VerifyCommandTests {
    static let launches: [(app: String, mode: String)] = [
        ("healthmagazin", "sealed"), ("healthmagazin", "signed"), ("bonusprogramm", "sealed"),
    ]

    @Test("mint prints one launch URL on the registered URL that verify accepts, the token shown as length and hash", arguments: launches)
    func roundTrip(app: String, mode: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let url = try await CLI.mint(app: app, keyring: keyring, ["--mode", mode])
        let registered = try #require(try Registry(contentsOfFile: RepositoryFile.sampleRegistry).app(id: app)).url.description
        #expect(url.hasPrefix(registered + (registered.contains("?") ? "&" : "?") + "launch="))

        let result = try await CLI.run(["verify", url, "--keyring", keyring])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardError.isEmpty)
        let output = result.standardOutput
        #expect(output.hasPrefix("valid launch\n"))
        #expect(output.contains("app           \(app)\n"))
        #expect(output.contains("mode          \(mode)\n"))
        #expect(output.contains("kid           k1\n"))
        #expect(output.contains("firstname     \(TestUser.firstName)\n"))
        #expect(output.contains("lastname      \(TestUser.lastName)\n"))
        #expect(output.contains("kvnumber      \(TestUser.kvnumber)\n"))
        #expect(output.contains("access_token  \(TestUser.fingerprint)"))
        #expect(!output.contains(TestUser.accessToken))
    }

    @Test("--reveal prints the access token itself")
    func reveal() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let result = try await CLI.run(["verify", try await CLI.mint(keyring: keyring), "--keyring", keyring, "--reveal"])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("access_token  \(TestUser.accessToken)\n"))
        #expect(!result.standardOutput.contains("sha256"))
    }

    @Test("--json prints one JSON object with valid true, the claims and the hidden token", arguments: [false, true])
    func json(reveal: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let result = try await CLI.run(["verify", try await CLI.mint(keyring: keyring), "--keyring", keyring, "--json"] + (reveal ? ["--reveal"] : []))
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.split(separator: "\n").count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(object["valid"] as? Bool == true)
        #expect(object["app"] as? String == "healthmagazin")
        #expect(object["audience"] as? String == "http://127.0.0.1:8080/apps/healthmagazin")
        #expect(object["firstname"] as? String == TestUser.firstName)
        #expect(object["kvnumber"] as? String == TestUser.kvnumber)
        #expect(object["access_token"] as? String == (reveal ? TestUser.accessToken : TestUser.fingerprint + "…"))
        #expect(result.standardOutput.contains(TestUser.accessToken) == reveal)
    }

    @Test("verify - reads the URL from standard input, one trailing LF or CR LF removed (SPEC.md §15.1)", arguments: ["", "\n", "\r\n"])
    func standardInput(trailing: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let url = try await CLI.mint(keyring: keyring)
        let result = try await CLI.run(["verify", "-", "--keyring", keyring, "--json"], input: url + trailing)
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.hasPrefix(#"{"access_token":"#))
        #expect(result.standardOutput.contains(#""valid":true"#))
    }
}

@Suite("verify rejects bad launches with exit 1 and the error code on one stderr line")
struct VerifyRejectionTests {
    /// Flips one base64url character in the middle of the token.
    static func tampered(_ url: String) -> String {
        let launch = token(of: url)
        var characters = Array(launch)
        let middle = characters.count / 2
        characters[middle] = characters[middle] == "A" ? "B" : "A"
        return url.replacingOccurrences(of: launch, with: String(characters))
    }

    static func expectRejected(_ result: SubprocessResult, codes: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1, "\(result)", sourceLocation: sourceLocation)
        #expect(result.standardOutput.isEmpty, sourceLocation: sourceLocation)
        #expect(result.errorLines.count == 1, "\(result)", sourceLocation: sourceLocation)
        #expect(codes.contains { result.standardError.hasPrefix("error: \($0):") }, "\(result)", sourceLocation: sourceLocation)
        #expect(!result.standardError.contains(TestUser.accessToken), sourceLocation: sourceLocation)
    }

    @Test("one character flipped in the middle of the token is bad_signature or malformed", arguments: ["sealed", "signed"])
    func tamperedToken(mode: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let url = try await CLI.mint(keyring: keyring, ["--mode", mode])
        let tampered = Self.tampered(url)
        #expect(tampered != url)
        Self.expectRejected(try await CLI.run(["verify", tampered, "--keyring", keyring]), codes: ["bad_signature", "malformed"])
        Self.expectRejected(try await CLI.run(["verify", "-", "--keyring", keyring], input: tampered), codes: ["bad_signature", "malformed"])
    }

    @Test("--json on a rejected launch prints valid false and the code, still exiting 1")
    func jsonRejection() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let result = try await CLI.run(["verify", Self.tampered(try await CLI.mint(keyring: keyring)), "--keyring", keyring, "--json"])
        #expect(result.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(object["valid"] as? Bool == false)
        #expect(["bad_signature", "malformed"].contains(object["error"] as? String ?? ""))
    }

    @Test("a launch for healthmagazin checked as another app fails its MAC (per-app keys); checked as healthmagazin at another app's URL, wrong_audience")
    func wrongAppAndAudience() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let url = try await CLI.mint(keyring: keyring)
        Self.expectRejected(try await CLI.run(["verify", url, "--keyring", keyring, "--app", "bonusprogramm"]), codes: ["bad_signature"])
        let moved = url.replacingOccurrences(of: "/apps/healthmagazin?", with: "/apps/bonusprogramm?tenant=demo&")
        Self.expectRejected(try await CLI.run(["verify", moved, "--keyring", keyring]), codes: ["bad_signature"])
        Self.expectRejected(try await CLI.run(["verify", moved, "--keyring", keyring, "--app", "healthmagazin"]), codes: ["wrong_audience"])
    }

    @Test("a launch minted ten minutes ago is expired; one minted ten minutes ahead is not yet valid", arguments: [
        (-600.0, "expired"), (600.0, "not_yet_valid"),
    ])
    func timeWindow(offset: TimeInterval, code: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let signer = try LaunchSigner(keyring: try Keyring(contentsOfFile: keyring), registry: try Registry(contentsOfFile: RepositoryFile.sampleRegistry))
        let url = try signer.launchURL(for: "healthmagazin", user: TestUser.user, lifetime: 60, now: Date().addingTimeInterval(offset))
        Self.expectRejected(try await CLI.run(["verify", url, "--keyring", keyring]), codes: [code])
    }

    @Test("a launch signed by another keyring is rejected: unknown_key for a foreign kid, bad_signature for the same kid")
    func foreignKeyring() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let url = try await CLI.mint(keyring: keyring)
        Self.expectRejected(try await CLI.run(["verify", url, "--keyring", RepositoryFile.developmentKeyring]), codes: ["unknown_key"])

        let other = directory.path("other.json")
        #expect(try await CLI.run(["keygen", "--kid", "k1", "--keyring", other, "--development"]).status == 0)
        Self.expectRejected(try await CLI.run(["verify", url, "--keyring", other]), codes: ["bad_signature"])
    }
}
