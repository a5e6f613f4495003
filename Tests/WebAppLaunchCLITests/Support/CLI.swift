import Foundation
import WebAppLaunch
import WebAppLaunchTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The built `webapp-launch` executable, run as a user would run it.
enum CLI {
    /// The executable next to the test bundle in the build products directory (found by
    /// walking up from the running test binary, so `.build` and any `--scratch-path` work).
    static let executablePath: String = {
        let starts = [Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0])].compactMap { $0 }
        for start in starts {
            var directory = start.resolvingSymlinksInPath().deletingLastPathComponent()
            while directory.path != "/" {
                let candidate = directory.appendingPathComponent("webapp-launch").path
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
                directory.deleteLastPathComponent()
            }
        }
        return repositoryRoot.appendingPathComponent(".build/debug/webapp-launch").path
    }()

    /// Runs `webapp-launch` with `arguments` to completion.
    /// - Parameters:
    ///   - arguments: The arguments after the executable's name.
    ///   - input: Text for standard input (for `-` arguments).
    ///   - environment: Variables added to (or replacing those of) the test's environment.
    ///   - timeout: How long it may run before it is killed and an error thrown.
    static func run(
        _ arguments: [String],
        input: String? = nil,
        environment: [String: String] = [:],
        timeout: Duration = .seconds(20)
    ) async throws -> SubprocessResult {
        try await runSubprocess(executablePath, arguments, input: input, environment: environment, timeout: timeout)
    }

    /// Runs `webapp-launch mint` for `app` and the test user, returning the URL it printed.
    /// - Throws: When mint does not exit 0 with exactly one line.
    static func mint(app: String = "healthmagazin", keyring: String, registry: String = RepositoryFile.sampleRegistry, _ extra: [String] = []) async throws -> String {
        let result = try await run(["mint", "--app", app, "--keyring", keyring, "--registry", registry] + TestUser.arguments + extra)
        let lines = result.standardOutput.split(separator: "\n")
        guard result.status == 0, lines.count == 1 else { throw SubprocessError(message: "mint failed: \(result)") }
        return String(lines[0])
    }
}

/// The user every minted launch is for. The access token is distinctive so a test can prove
/// it is absent from output.
enum TestUser {
    static let accessToken = "cli-test-access-token-Zq81xKv03"
    static let firstName = "Jürgen"
    static let lastName = "O'Brien"
    static let kvnumber = "A123456780"

    static var arguments: [String] {
        ["--access-token", accessToken, "--firstname", firstName, "--lastname", lastName, "--kvnumber", kvnumber]
    }

    static var user: LaunchUser {
        LaunchUser(accessToken: accessToken, firstName: firstName, lastName: lastName, kvnumber: kvnumber)
    }

    /// How `verify` prints the token when not revealing it: its length and a short hash.
    static var fingerprint: String {
        let hash = (try? SHA256.hash(Array(accessToken.utf8))) ?? []
        return "\(accessToken.utf8.count) bytes, sha256 " + hash.prefix(6).map { String(format: "%02x", $0) }.joined()
    }
}

/// Creates a keyring file with one active key `k1` through `keygen`.
/// - Parameter development: Whether to pass `--development`.
/// - Returns: The keyring's path inside `directory`.
func makeKeyring(in directory: TemporaryDirectory, development: Bool = true) async throws -> String {
    let path = directory.path("keyring.json")
    let result = try await CLI.run(["keygen", "--kid", "k1", "--keyring", path] + (development ? ["--development"] : []))
    guard result.status == 0 else { throw SubprocessError(message: "keygen failed: \(result)") }
    return path
}

/// The value of the `launch` parameter of a launch URL.
func token(of url: String) -> String {
    String(url.split(separator: "launch=", maxSplits: 1).last ?? "")
}

/// The POSIX permission bits of a file.
func permissions(of path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

