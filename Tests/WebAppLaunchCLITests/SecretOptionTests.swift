import Foundation
import Testing
import WebAppLaunchTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Issue 12, finding 7: secrets on the command line are visible to every local user (`ps`,
/// `/proc/PID/cmdline`). Every secret-bearing option also reads `env:NAME`, `file:PATH` or
/// `-` (standard input), and a secret given inline draws a warning that never repeats it.
@Suite("Secret options read env:, file: and - and warn when a secret is given inline")
struct SecretOptionTests {
    static let secret = "secret-option-token-Q7pL2x"

    /// The access token `verify --reveal` finds in a launch minted with `arguments`.
    static func mintedAccessToken(
        _ accessToken: String,
        input: String? = nil,
        environment: [String: String] = [:],
        keyring: String
    ) async throws -> (token: String?, mint: SubprocessResult) {
        let mint = try await CLI.run(
            ["mint", "--app", "healthmagazin", "--keyring", keyring, "--registry", RepositoryFile.sampleRegistry,
             "--access-token", accessToken, "--firstname", "Erika", "--lastname", "Mustermann", "--kvnumber", TestUser.kvnumber],
            input: input,
            environment: environment
        )
        guard mint.status == 0 else { return (nil, mint) }
        let verify = try await CLI.run(["verify", mint.standardOutput.trimmingCharacters(in: .newlines), "--keyring", keyring, "--reveal"])
        let line = verify.standardOutput.split(separator: "\n").first { $0.hasPrefix("  access_token") }
        return (line.map { String($0.dropFirst("  access_token  ".count)) }, mint)
    }

    enum Form: String, CaseIterable, Sendable { case environment, file, standardInput }

    @Test("mint --access-token reads env:NAME, file:PATH and - without a warning", arguments: Form.allCases)
    func mintReadsReference(form: Form) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory)
        let file = directory.path("token")
        #expect(FileManager.default.createFile(atPath: file, contents: Data((Self.secret + "\n").utf8), attributes: [.posixPermissions: 0o600]))
        let (token, mint) = switch form {
        case .environment: try await Self.mintedAccessToken("env:WEBAPP_TEST_TOKEN", environment: ["WEBAPP_TEST_TOKEN": Self.secret], keyring: keyring)
        case .file: try await Self.mintedAccessToken("file:" + file, keyring: keyring)
        case .standardInput: try await Self.mintedAccessToken("-", input: Self.secret + "\n", keyring: keyring)
        }
        #expect(mint.status == 0, "\(mint)")
        #expect(token == Self.secret, "\(mint)")
        #expect(mint.standardError.isEmpty, "no warning for a secret kept off the command line: \(mint)")
    }

    @Test("mint --access-token given inline works but warns on stderr in one line that never repeats the token")
    func mintWarnsInline() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (token, mint) = try await Self.mintedAccessToken(Self.secret, keyring: try makeKeyring(in: directory))
        #expect(token == Self.secret)
        #expect(mint.errorLines.count == 1, "\(mint)")
        #expect(mint.standardError.hasPrefix("warning: --access-token"), "\(mint)")
        #expect(mint.standardError.contains("env:NAME"))
        #expect(!mint.standardError.contains(Self.secret))
    }

    @Test("a reference that cannot be read is a configuration error: exit 2, one line, no secret", arguments: [
        "env:WEBAPP_TEST_UNSET_VARIABLE", "file:/nonexistent/token", "env:", "file:",
    ])
    func unreadableReference(reference: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, mint) = try await Self.mintedAccessToken(reference, keyring: try makeKeyring(in: directory))
        #expect(mint.status == 2, "\(mint)")
        #expect(mint.standardOutput.isEmpty)
        #expect(mint.errorLines.count == 1, "\(mint)")
        #expect(mint.standardError.contains("--access-token"), "\(mint)")
    }

    @Test("serve --replay with a password inline starts, warning once on stderr without the password; a URL without one draws no warning", arguments: [
        ("postgres://app:\(secret)@127.0.0.1:1/launches", true),
        ("postgres://app:\u{301}\(secret)@127.0.0.1:1/launches", true),  // `:` + combining mark is still a `:`
        ("postgresql://app@127.0.0.1:1/launches?password=\(secret)", true),
        ("postgres://app@127.0.0.1:1/launches", false),
    ])
    func serveWarnsOnInlinePassword(replay: String, warns: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let port = try freeLoopbackPort()
        // The PostgreSQL store connects lazily, so the server starts with no database.
        let server = try BackgroundSubprocess(
            CLI.executablePath,
            ["serve", "--port", "\(port)", "--metrics-address", "127.0.0.1:0", "--registry", RepositoryFile.sampleRegistry, "--replay", replay, "--log-level", "critical"],
            standardErrorPath: directory.path("serve.log")
        )
        _ = try await server.firstLine(within: .seconds(15)) { $0.hasPrefix("webapp-launch serving") }
        #expect(try await server.stop(with: SIGTERM, within: .seconds(10)) == 0, "log:\n\(server.standardError)")
        let warnings = server.standardError.split(separator: "\n").filter { $0.hasPrefix("warning: --replay") }
        #expect(warnings.count == (warns ? 1 : 0), "log:\n\(server.standardError)")
        #expect(!server.standardError.contains(Self.secret), "the password reached stderr")
    }

    @Test("a configuration error with an inline secret stays one line on stderr, without the secret")
    func configurationErrorStaysOneLine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory, development: false)
        let serve = try await CLI.run(
            ["serve", "--port", "\(try freeLoopbackPort())", "--keyring", keyring, "--replay", "postgres://app:\(Self.secret)@127.0.0.1:1/launches"],
            timeout: .seconds(10)
        )
        #expect(serve.status == 2, "\(serve)")
        #expect(serve.errorLines.count == 1 && serve.standardError.hasPrefix("error: "), "\(serve)")
        #expect(!serve.standardError.contains(Self.secret))
        let (_, mint) = try await Self.mintedAccessToken(Self.secret, environment: [:], keyring: directory.path("missing.json"))
        #expect(mint.status == 2, "\(mint)")
        #expect(mint.errorLines.count == 1 && mint.standardError.hasPrefix("error: "), "\(mint)")
        #expect(!mint.standardError.contains(Self.secret))
    }

    @Test("serve --replay file:PATH reads the store from a file")
    func serveReadsReplayFromFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("replay")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("memory\n".utf8), attributes: [.posixPermissions: 0o600]))
        let port = try freeLoopbackPort()
        let server = try BackgroundSubprocess(
            CLI.executablePath,
            ["serve", "--port", "\(port)", "--metrics-address", "127.0.0.1:0", "--registry", RepositoryFile.sampleRegistry, "--replay", "file:" + file],
            standardErrorPath: directory.path("serve.log")
        )
        let banner = try await server.firstLine(within: .seconds(15)) { $0.hasPrefix("webapp-launch serving") }
        #expect(banner.hasPrefix("webapp-launch serving on http://127.0.0.1:\(port)"))
        #expect(try await server.stop(with: SIGTERM, within: .seconds(10)) == 0, "log:\n\(server.standardError)")
    }

    @Test("--help examples keep secrets off the command line", arguments: [
        (["mint", "--help"], "--access-token env:"), (["serve", "--help"], "--replay env:DATABASE_URL"), (["--help"], "--access-token env:"),
    ])
    func helpExamples(arguments: [String], expected: String) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 0)
        // argument-parser wraps help at 80 columns: compare with whitespace runs collapsed.
        let help = result.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains(expected), "\(result)")
        #expect(!help.contains(#""$DATABASE_URL""#))
        #expect(!help.contains("--access-token abc") && !help.contains("--access-token T "))
    }
}
