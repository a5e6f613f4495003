import Foundation
import Testing
import WebAppLaunchTestSupport

/// Issue 17 point 6 and issue 18 point 1: the CLI splits a launch URL with the verifier's
/// own splitter, so a bare or repeated `launch` is a rejected launch (exit 1, `malformed`),
/// never a configuration error, and every rejection under `--json` prints JSON.
@Suite("verify splits a launch URL as the verifier does: bare or repeated launch pieces are rejected launches")
struct LaunchSplittingCommandTests {
    @Test("a bare launch piece, alone or beside a token, is malformed with exit 1", arguments: ["?launch", "?launch&launch=TOKEN", "?launch=TOKEN&launch", "?launch=TOKEN&launch=TOKEN"])
    func bareOrRepeatedLaunch(query: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let token = token(of: try await CLI.mint(keyring: keyring))
        let url = "http://127.0.0.1:8080/apps/healthmagazin" + query.replacingOccurrences(of: "TOKEN", with: token)
        for json in [false, true] {
            let result = try await CLI.run(["verify", url, "--keyring", keyring] + (json ? ["--json"] : []))
            #expect(result.status == 1, "\(result)")
            #expect(result.errorLines.count == 1)
            #expect(result.standardError.contains("malformed"), "\(result)")
            #expect(!result.standardError.contains("cannot carry"), "not a registry error")
            if json {
                #expect(result.standardOutput == #"{"valid":false,"error":"malformed"}"# + "\n")
            }
        }
    }

    @Test("a URL without a query is a rejected launch, and under --json it prints the JSON verdict")
    func noQuery() async throws {
        let result = try await CLI.run(["verify", "http://127.0.0.1:8080/apps/healthmagazin", "--json"])
        #expect(result.status == 1, "\(result)")
        #expect(result.standardOutput == #"{"valid":false,"error":"malformed"}"# + "\n")
    }

    @Test("a combining mark after & does not hide the separator: the registered parameter and launch are still two pieces")
    func combiningMarkAfterAmpersand() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let url = try await CLI.mint(app: "bonusprogramm", keyring: keyring)
        let marked = url.replacingOccurrences(of: "&launch=", with: "&\u{301}launch=")
        let result = try await CLI.run(["verify", marked, "--keyring", keyring])
        #expect(result.status != 0, "the mark makes the piece `\u{301}launch=…`, which is not launch: \(result)")
    }
}
