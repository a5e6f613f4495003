import Foundation
import Testing
import WebAppLaunchTestSupport

/// Issue 32: what `verify` does that a second implementation can observe, as SPEC.md §15
/// states it: the order of its checks, where its app and audience come from, and how it
/// reads standard input.
@Suite("verify follows SPEC.md §15: the URL's shape before its defaults, no app from the token, standard input taken as given")
struct VerifyContractCommandTests {
    static func expectVerdict(_ result: SubprocessResult, exit: Int32, code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == exit, "\(result)", sourceLocation: sourceLocation)
        #expect(result.errorLines.count == 1, "\(result)", sourceLocation: sourceLocation)
        #expect(result.standardError.hasPrefix("error: \(code)"), "\(result)", sourceLocation: sourceLocation)
    }

    @Test("a launch URL with a fragment is malformed (exit 1, JSON verdict) with or without --audience, before the default audience is worked out", arguments: [
        "BASE#x?launch=TOKEN", "BASE?launch=TOKEN#x", "BASE?launch=TOKEN#", "BASE#?launch=TOKEN",
    ])
    func fragmentIsMalformedFirst(shape: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let url = try await CLI.mint(keyring: keyring)
        let base = String(url.split(separator: "?", maxSplits: 1)[0])
        let text = shape.replacingOccurrences(of: "BASE", with: base).replacingOccurrences(of: "TOKEN", with: token(of: url))
        for audience in [[], ["--audience", base]] {
            let result = try await CLI.run(["verify", text, "--keyring", keyring, "--json"] + audience)
            Self.expectVerdict(result, exit: 1, code: "malformed")
            #expect(result.standardOutput == #"{"valid":false,"error":"malformed"}"# + "\n")
        }
    }

    @Test("a URL whose part without launch is no registered URL is a configuration error (exit 2, nothing on stdout), and verifies with --audience")
    func unparsableDefaultAudience() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let url = try await CLI.mint(keyring: keyring)
        // A `;` is refused in a registered path (SPEC.md §8.1 rule 8).
        let moved = url.replacingOccurrences(of: "/apps/healthmagazin?", with: "/apps/health;magazin?")
        let result = try await CLI.run(["verify", moved, "--keyring", keyring, "--json"])
        #expect(result.status == 2, "\(result)")
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.contains("--audience"), "\(result)")
        let explicit = try await CLI.run(["verify", moved, "--keyring", keyring, "--audience", "http://127.0.0.1:8080/apps/healthmagazin", "--json"])
        #expect(explicit.standardOutput == #"{"valid":false,"error":"wrong_audience"}"# + "\n", "\(explicit)")
    }

    @Test("the app is never taken from the unverified token: a launch for an app no registry entry, keyring or --app names exits 2; with --app or its registry it verifies")
    func noAppFromTheToken() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let registry = directory.path("registry.json")
        try Data(#"{"apps":[{"id":"zzz","title":"Z","url":"http://127.0.0.1:9/zzz"}]}"#.utf8).write(to: URL(fileURLWithPath: registry))
        let url = try await CLI.mint(app: "zzz", keyring: keyring, registry: registry)

        let unnamed = try await CLI.run(["verify", url, "--keyring", keyring, "--json"])
        #expect(unnamed.status == 2, "\(unnamed)")
        #expect(unnamed.standardOutput.isEmpty, "no verdict: nothing was verified")
        #expect(unnamed.errorLines.count == 1)
        #expect(unnamed.standardError.contains("--app"), "\(unnamed)")
        #expect(try await CLI.run(["verify", url, "--keyring", keyring, "--app", "zzz"]).status == 0)
        #expect(try await CLI.run(["verify", url, "--keyring", keyring, "--registry", registry]).status == 0)
    }

    @Test("a --registry that does not load is a configuration error, not silently replaced")
    func unloadableRegistry() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let url = try await CLI.mint(keyring: keyring)
        let broken = directory.path("broken.json")
        try Data(#"{"apps": ["#.utf8).write(to: URL(fileURLWithPath: broken))
        let result = try await CLI.run(["verify", url, "--keyring", keyring, "--registry", broken, "--app", "healthmagazin", "--json"])
        #expect(result.status == 2, "\(result)")
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.contains("invalid_json"), "\(result)")
    }

    @Test("standard input keeps everything but one trailing LF or CR LF: more whitespace is part of the URL", arguments: [
        ("", "\n\n", Int32(1)), ("", " \n", 1), ("", "\t", 1), ("", "\n\r\n", 1), (" ", "\n", 2),
    ])
    func standardInputIsTakenAsGiven(leading: String, trailing: String, exit: Int32) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let url = try await CLI.mint(keyring: keyring)
        let result = try await CLI.run(["verify", "-", "--keyring", keyring], input: leading + url + trailing)
        #expect(result.status == exit, "\(result)")
        if exit == 1 { Self.expectVerdict(result, exit: 1, code: "malformed") }
    }

    @Test("more than 64 KiB on standard input, or in the argument, is too_large (exit 1, JSON verdict); 64 KiB and a LF is read whole")
    func oversizedInput() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let base = "http://127.0.0.1:8080/apps/healthmagazin?launch="
        let filler = { (count: Int) in base + String(repeating: "A", count: count - base.utf8.count) }
        for input in [filler(65537), filler(65537) + "\n", filler(200_000)] {
            let result = try await CLI.run(["verify", "-", "--keyring", keyring, "--json"], input: input)
            Self.expectVerdict(result, exit: 1, code: "too_large")
            #expect(result.standardOutput == #"{"valid":false,"error":"too_large"}"# + "\n")
        }
        // Exactly 65536 bytes are read whole: the token in them (over 16384 bytes) is what is too large.
        let atLimit = try await CLI.run(["verify", "-", "--keyring", keyring], input: filler(65536) + "\r\n")
        Self.expectVerdict(atLimit, exit: 1, code: "too_large")
        #expect(atLimit.standardError.contains("16384"), "the verifier's limit, not the input's: \(atLimit)")
        let argument = try await CLI.run(["verify", filler(65537), "--keyring", keyring])
        Self.expectVerdict(argument, exit: 1, code: "too_large")
        #expect(argument.standardError.contains("65536"), "\(argument)")
    }
}
