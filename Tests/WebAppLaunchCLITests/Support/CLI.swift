import Foundation
import WebAppLaunch

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
        return Repository.root.appendingPathComponent(".build/debug/webapp-launch").path
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
    ) throws -> SubprocessResult {
        try runSubprocess(executablePath, arguments, input: input, environment: environment, timeout: timeout)
    }

    /// Runs `webapp-launch mint` for `app` and the test user, returning the URL it printed.
    /// - Throws: When mint does not exit 0 with exactly one line.
    static func mint(app: String = "healthmagazin", keyring: String, registry: String = Repository.sampleRegistry, _ extra: [String] = []) throws -> String {
        let result = try run(["mint", "--app", app, "--keyring", keyring, "--registry", registry] + TestUser.arguments + extra)
        let lines = result.standardOutput.split(separator: "\n")
        guard result.status == 0, lines.count == 1 else { throw SubprocessError(message: "mint failed: \(result)") }
        return String(lines[0])
    }
}

/// Files of this source checkout.
enum Repository {
    /// The package root, four levels above this file.
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url
    }()

    /// The sample registry (apps on http://127.0.0.1:8080).
    static let sampleRegistry = root.appendingPathComponent("keys/registry.sample.json").path
    /// The shipped development keyring.
    static let developmentKeyring = root.appendingPathComponent("keys/dev.keyring.json").path
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

/// A fresh directory under the system's temporary directory; call ``remove()`` when done.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/webapp-launch-cli-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw SubprocessError(message: "mkdtemp failed: \(errno)") }
        url = URL(fileURLWithPath: String(cString: created))
    }

    /// The path of `name` inside the directory.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Creates a keyring file with one active key `k1` through `keygen`.
/// - Parameter development: Whether to pass `--development`.
/// - Returns: The keyring's path inside `directory`.
func makeKeyring(in directory: TemporaryDirectory, development: Bool = true) throws -> String {
    let path = directory.path("keyring.json")
    let result = try CLI.run(["keygen", "--kid", "k1", "--keyring", path] + (development ? ["--development"] : []))
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

/// A loopback TCP port that was free a moment ago (the kernel picks it).
func freeLoopbackPort() throws -> Int {
    #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw SubprocessError(message: "socket failed: \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
        }
    }
    guard bound else { throw SubprocessError(message: "bind failed: \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// The HTTP status of a GET of `url` without following redirects, as `curl` reports it.
func httpStatus(of url: String) throws -> Int {
    let result = try runSubprocess("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", url], timeout: .seconds(10))
    guard result.status == 0, let code = Int(result.standardOutput) else {
        throw SubprocessError(message: "curl failed: \(result)")
    }
    return code
}
