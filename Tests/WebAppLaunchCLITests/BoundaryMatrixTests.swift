import Foundation
import Testing
import WebAppLaunch
import WebAppLaunchTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Issue 29: every entry point enforces every boundary, through one mechanism each. One row
/// per entry point and guard, run against the built binary as an operator or attacker would
/// use it. (The middleware in a bare Hummingbird app has its rows in
/// `WebAppLaunchServerTests/MiddlewareBoundaryTests`.) A new entry point adds a case to
/// ``EntryPoint`` and so a row to every test here.
@Suite("Boundary matrix: serve, gate (both shapes) and launcher each enforce every guard")
struct BoundaryMatrixTests {
    /// The entry points a process runs.
    enum EntryPoint: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case serve, gateReverseProxy, gateAuthRequest, launcher
        /// `serve` with its launches on Hummingbird's request path (`--no-event-loop-launches`):
        /// the same entry point, so not in ``allCases``; the launch rows run it beside `serve`,
        /// whose memory store has its launches answered on the event loop.
        case serveOnHummingbirdPath
        /// `gate --auth-request` with nginx's `/auth` checks on Hummingbird's request path
        /// (`--no-event-loop-answers`): the same entry point, so not in ``allCases``; the `/auth`
        /// row runs it beside the default, whose checks with a session take the event loop.
        case gateAuthRequestOnHummingbirdPath
        /// `gate --upstream` with its proxied GETs on Hummingbird's request path
        /// (`--no-event-loop-answers`): the same entry point, so not in ``allCases``; the
        /// proxied-identity row runs it beside the default, whose GETs with a session are
        /// relayed on the event loop.
        case gateReverseProxyOnHummingbirdPath

        static var allCases: [EntryPoint] { [.serve, .gateReverseProxy, .gateAuthRequest, .launcher] }

        /// The rows that exchange launches, each launch path of `serve` included.
        static var launchPaths: [EntryPoint] { allCases.filter(\.holdsSessions) + [.serveOnHummingbirdPath] }

        var testDescription: String { rawValue }

        /// Whether it exchanges launches for sessions (every entry point but the launcher,
        /// which mints).
        var holdsSessions: Bool { self != .launcher }

        /// The command line, keyring aside.
        /// - Parameters:
        ///   - host: `--host`.
        ///   - port: `--port`.
        ///   - publicURL: The public URL (gate), or `nil` for the sample one.
        ///   - registry: The registry file (serve, launcher), or `nil` for the embedded one.
        ///   - upstreamPort: The reverse proxy's upstream.
        func arguments(host: String, port: Int, publicURL: String? = nil, registry: String? = nil, upstreamPort: Int = 9) -> [String] {
            let gatePublicURL = publicURL ?? "http://127.0.0.1:\(port)/"
            switch self {
            case .serve, .serveOnHummingbirdPath:
                return ["serve", "--host", host, "--port", "\(port)", "--metrics-address", "none", "--replay", "memory"]
                    + (self == .serveOnHummingbirdPath ? ["--no-event-loop-launches"] : [])
                    + (registry.map { ["--registry", $0] } ?? [])
                    + (publicURL.map { ["--app", "healthmagazin", "--public-url", $0] } ?? [])
            case .gateReverseProxy, .gateReverseProxyOnHummingbirdPath:
                return ["gate", "--app", "healthmagazin", "--public-url", gatePublicURL, "--host", host, "--port", "\(port)",
                        "--replay", "memory", "--upstream", "http://127.0.0.1:\(upstreamPort)"]
                    + (self == .gateReverseProxyOnHummingbirdPath ? ["--no-event-loop-answers"] : [])
            case .gateAuthRequest, .gateAuthRequestOnHummingbirdPath:
                return ["gate", "--app", "healthmagazin", "--public-url", gatePublicURL, "--host", host, "--port", "\(port)",
                        "--replay", "memory", "--auth-request"]
                    + (self == .gateAuthRequestOnHummingbirdPath ? ["--no-event-loop-answers"] : [])
            case .launcher:
                return ["launcher", "--issuer", "http://127.0.0.1:9", "--host", host, "--port", "\(port)"]
                    + (registry.map { ["--registry", $0] } ?? [])
            }
        }
    }

    /// A registry with one app, `healthmagazin`, at `url`; with `mode`, given those permissions.
    static func registry(at url: String, in directory: TemporaryDirectory, mode: Int? = nil) throws -> String {
        let path = directory.path("registry-\(abs(url.hashValue)).json")
        try #"{"apps":[{"id":"healthmagazin","title":"Gesundheitsmagazin","url":"\#(url)"}]}"#.write(toFile: path, atomically: true, encoding: .utf8)
        if let mode { #expect(chmod(path, mode_t(mode)) == 0) }
        return path
    }

    /// Runs a command that must refuse to start: exit 2, one line on stderr, nothing served.
    static func expectRefusal(_ arguments: [String], mentioning expected: [String], environment: [String: String] = [:]) async throws {
        let result = try await CLI.run(arguments, environment: environment, timeout: .seconds(20))
        #expect(result.status == 2, "\(arguments): \(result)")
        #expect(result.errorLines.count == 1, "\(arguments): \(result)")
        for text in expected {
            #expect(result.standardError.contains(text), "\(arguments) should mention \(text): \(result)")
        }
    }

    // MARK: Development keys

    @Test("the embedded development keyring on a non-loopback address is refused, and --keyring is named as required", arguments: EntryPoint.allCases)
    func embeddedKeyringOffLoopbackAddress(entry: EntryPoint) async throws {
        try await Self.expectRefusal(
            entry.arguments(host: "0.0.0.0", port: try freeLoopbackPort()),
            mentioning: ["development_keys_off_loopback", "--keyring is required"]
        )
    }

    @Test("the embedded development keyring for an https public URL or registry entry is refused, even bound to loopback", arguments: EntryPoint.allCases)
    func embeddedKeyringForPublicURL(entry: EntryPoint) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let registry = try Self.registry(at: "https://magazin.example/", in: directory)
        let arguments = switch entry {
        case .serve, .serveOnHummingbirdPath, .gateReverseProxy, .gateReverseProxyOnHummingbirdPath, .gateAuthRequest, .gateAuthRequestOnHummingbirdPath:
            entry.arguments(host: "127.0.0.1", port: try freeLoopbackPort(), publicURL: "https://magazin.example/", registry: registry)
        case .launcher:
            entry.arguments(host: "127.0.0.1", port: try freeLoopbackPort(), registry: registry)
        }
        try await Self.expectRefusal(arguments, mentioning: ["development_keys_off_loopback", "--keyring is required"])
    }

    @Test("a flagless copy of the development keys (an exported app keyring; the launcher keyring for the launcher) is refused off loopback", arguments: EntryPoint.allCases)
    func flaglessDevelopmentKeys(entry: EntryPoint) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = directory.path("flagless.keyring.json")
        if entry == .launcher {
            let shipped = try Data(contentsOf: URL(fileURLWithPath: RepositoryFile.developmentKeyring))
            var object = try #require(try JSONSerialization.jsonObject(with: shipped) as? [String: Any])
            object.removeValue(forKey: "development")
            #expect(FileManager.default.createFile(atPath: keyring, contents: try JSONSerialization.data(withJSONObject: object), attributes: [.posixPermissions: 0o600]))
        } else {
            let export = try await CLI.run(["keygen", "--keyring", RepositoryFile.developmentKeyring, "--export-app", "healthmagazin", "--out", keyring])
            #expect(export.status == 0, "\(export)")
            let exported = try Data(contentsOf: URL(fileURLWithPath: keyring))
            var object = try #require(try JSONSerialization.jsonObject(with: exported) as? [String: Any])
            #expect(object["development"] as? Bool == true, "the export says what it is")
            object.removeValue(forKey: "development")
            try FileManager.default.removeItem(atPath: keyring)
            #expect(FileManager.default.createFile(atPath: keyring, contents: try JSONSerialization.data(withJSONObject: object), attributes: [.posixPermissions: 0o600]))
        }
        let registry = try Self.registry(at: "https://magazin.example/", in: directory)
        var arguments = entry.arguments(host: "0.0.0.0", port: try freeLoopbackPort(), publicURL: entry == .launcher ? nil : "https://magazin.example/", registry: registry)
        arguments += ["--keyring", keyring]
        try await Self.expectRefusal(arguments, mentioning: ["development_keys_off_loopback"])
    }

    // MARK: Keyring files

    /// Keyring files that must not load, each with its mode: what `scripts/fault-test`'s
    /// keyring fault once checked for `serve` alone.
    enum BrokenKeyring: String, CaseIterable, Sendable {
        case garbage, truncatedJSON, shortSecret, unknownStatus, empty, noKeys, groupReadableProduction, missing

        /// The file's bytes (`nil`: no file) and mode, made from the shipped development keyring
        /// (whose last key's secret is `secret`) or, for the production case, around
        /// `productionSecret` (a fresh one: the published secrets are development keys
        /// wherever they appear, and development keyrings may be group-readable).
        func contents(shipped: String, secret: String, productionSecret: String) -> (bytes: [UInt8]?, mode: Int) {
            switch self {
            case .garbage:
                var generator = SystemRandomNumberGenerator()
                return ((0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }, 0o600)
            case .truncatedJSON: return (Array(shipped.utf8.prefix(shipped.utf8.count / 2)), 0o600)
            case .shortSecret: return (Array(shipped.replacingOccurrences(of: secret, with: String(secret.prefix(20))).utf8), 0o600)
            case .unknownStatus: return (Array(shipped.replacingOccurrences(of: "\"active\"", with: "\"enabled\"").utf8), 0o600)
            case .empty: return ([], 0o600)
            case .noKeys: return (Array(#"{"development": true, "keys": []}"#.utf8), 0o600)
            case .groupReadableProduction:
                return (Array(#"{"keys": [{"kid": "p1", "status": "active", "secret": "\#(productionSecret)"}]}"#.utf8), 0o644)
            case .missing: return (nil, 0)
            }
        }
    }

    @Test("a keyring file that does not load refuses the start: exit 2, one line naming the keyring, no secret echoed",
          arguments: EntryPoint.allCases, BrokenKeyring.allCases)
    func brokenKeyring(entry: EntryPoint, broken: BrokenKeyring) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let shipped = try String(contentsOfFile: RepositoryFile.developmentKeyring, encoding: .utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shipped.utf8)) as? [String: Any])
        let keys = try #require(object["keys"] as? [[String: Any]])
        let secret = try #require(keys.last?["secret"] as? String)
        let path = directory.path("\(broken.rawValue).keyring.json")
        var generator = SystemRandomNumberGenerator()
        let productionSecret = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let (bytes, mode) = broken.contents(shipped: shipped, secret: secret, productionSecret: productionSecret)
        if let bytes {
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: mode]))
        }
        let arguments = entry.arguments(host: "127.0.0.1", port: try freeLoopbackPort()) + ["--keyring", path]
        let result = try await CLI.run(arguments, timeout: .seconds(20))
        #expect(result.status == 2, "\(arguments): \(result)")
        #expect(result.errorLines.count == 1, "\(arguments): \(result)")
        #expect(result.standardError.lowercased().contains("keyring"), "\(result)")
        for echoed in [secret, productionSecret] {
            #expect(!result.standardError.contains(String(echoed.prefix(20))), "the secret must not be echoed: \(result)")
        }
    }

    @Test("a registry file that group or others may write refuses the start of every entry point that reads one: exit 2, one line naming it (the gate's --upstream-ca-file has the same rule)",
          arguments: [EntryPoint.serve, .launcher], [0o664, 0o646])
    func looseRegistry(entry: EntryPoint, mode: Int) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let registry = try Self.registry(at: "http://127.0.0.1:8080/apps/healthmagazin", in: directory, mode: mode)
        try await Self.expectRefusal(
            entry.arguments(host: "127.0.0.1", port: try freeLoopbackPort(), registry: registry),
            mentioning: [registry, "writable by group or others"]
        )
    }

    @Test("mint reads a registry by the same rule: one that group or others may write mints nothing (exit 2, one line naming it, no URL on stdout)",
          arguments: [0o664, 0o646])
    func looseRegistryMint(mode: Int) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let registry = try Self.registry(at: "http://127.0.0.1:8080/apps/healthmagazin", in: directory, mode: mode)
        let arguments = ["mint", "--app", "healthmagazin", "--registry", registry, "--access-token", "env:WEBAPP_LAUNCH_TEST_TOKEN",
                         "--firstname", "Erika", "--lastname", "Mustermann", "--kvnumber", "T012345678"]
        let result = try await CLI.run(arguments, environment: ["WEBAPP_LAUNCH_TEST_TOKEN": "token-of-the-test"], timeout: .seconds(20))
        #expect(result.status == 2, "\(result)")
        #expect(result.errorLines.count == 1, "\(result)")
        #expect(result.standardError.contains(registry) && result.standardError.contains("writable by group or others"), "\(result)")
        #expect(!result.standardOutput.contains("http"), "a refused registry mints no URL: \(result)")
        // The same file with the usual mode mints: the refusal is the mode's, not the file's.
        #expect(chmod(registry, 0o644) == 0)
        let minted = try await CLI.run(arguments, environment: ["WEBAPP_LAUNCH_TEST_TOKEN": "token-of-the-test"], timeout: .seconds(20))
        #expect(minted.status == 0, "\(minted)")
        #expect(minted.standardOutput.hasPrefix("http://127.0.0.1:8080/apps/healthmagazin?"), "\(minted)")
    }

    // MARK: Loopback, decided from the parsed address

    @Test("a bind host that only looks like loopback (127.0.0.08, 127.evil.example) is not loopback for development keys", arguments: EntryPoint.allCases, ["127.0.0.08", "127.evil.example", "localhost.evil.example"])
    func lookalikeLoopbackHost(entry: EntryPoint, host: String) async throws {
        var arguments = entry.arguments(host: host, port: try freeLoopbackPort())
        arguments += ["--keyring", RepositoryFile.developmentKeyring]
        try await Self.expectRefusal(arguments, mentioning: ["development_keys_off_loopback"])
    }

    @Test("the launcher's provider URLs are loopback only by their parsed host: http://127.evil.example is refused", arguments: [
        ["--issuer", "http://127.evil.example/"],
        ["--issuer", "http://127.0.0.1.nip.io/"],
        ["--issuer", "https://login.example", "--introspection-endpoint", "http://127.evil.example/introspect", "--client-id", "launcher"],
    ])
    func providerURLLookalikes(arguments: [String]) async throws {
        try await Self.expectRefusal(["launcher", "--port", "\(try freeLoopbackPort())"] + arguments, mentioning: ["https"])
    }

    // MARK: Metrics listener

    @Test("every entry point reads --metrics-address one way: a malformed address is refused with the same line", arguments: EntryPoint.allCases, ["localhost", "127.0.0.1:99999", ":9464"])
    func malformedMetricsAddress(entry: EntryPoint, address: String) async throws {
        var arguments = entry.arguments(host: "127.0.0.1", port: try freeLoopbackPort())
        if let index = arguments.firstIndex(of: "--metrics-address") { arguments.removeSubrange(index...index + 1) }
        arguments += ["--metrics-address", address]
        try await Self.expectRefusal(arguments, mentioning: ["--metrics-address must be HOST:PORT or none"])
    }

    // MARK: Secrets never on argv

    @Test("every secret option reads env:NAME (an unset variable is named, the value never printed)", arguments: [
        (EntryPoint.serve, "--replay"), (.gateReverseProxy, "--replay"), (.gateAuthRequest, "--replay"), (.launcher, "--client-secret"),
    ])
    func secretOptionsReadReferences(entry: EntryPoint, option: String) async throws {
        var arguments = entry.arguments(host: "127.0.0.1", port: try freeLoopbackPort()).filter { $0 != "--replay" && $0 != "memory" }
        if entry == .launcher {
            arguments += ["--introspection-endpoint", "http://127.0.0.1:9/introspect", "--client-id", "launcher",
                          "--accepted-client-id", "native-app", "--audience", "launcher"]
        }
        arguments += [option, "env:WEBAPP_LAUNCH_TEST_UNSET_SECRET"]
        try await Self.expectRefusal(arguments, mentioning: [option, "WEBAPP_LAUNCH_TEST_UNSET_SECRET"], environment: ["WEBAPP_LAUNCH_TEST_UNSET_SECRET": ""])
    }

    @Test("every option of every command that can carry a secret resolves env:, file: and - (a new one without it fails here)")
    func everySecretOptionIsASecretArgument() async throws {
        let dump = try await CLI.run(["--experimental-dump-help"])
        #expect(dump.status == 0, "\(dump)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])
        var commands: [[String: Any]] = [try #require(root["command"] as? [String: Any])]
        var secretOptions: [(command: String, option: String)] = []
        while let command = commands.popLast() {
            commands += command["subcommands"] as? [[String: Any]] ?? []
            let name = command["commandName"] as? String ?? ""
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["kind"] as? String == "option" {
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                // Judged by the option's name: what it carries, not what its help mentions.
                let text = names.joined(separator: " ").lowercased()
                let looksSecret = ["access-token", "bearer", "secret", "password", "replay", "database", "credential", "dsn", "api-key"].contains { text.contains($0) }
                guard looksSecret, let long = names.first(where: { $0.count > 1 }) else { continue }
                secretOptions.append((name, "--" + long))
                let help = (argument["abstract"] as? String ?? "")
                #expect(help.contains("env:NAME") && help.contains("file:PATH"), "\(name) --\(long) must say it takes env:NAME, file:PATH or -: \(help)")
            }
        }
        // The options this test found are exactly the ones routed through SecretArgument.
        let found = Set(secretOptions.map { "\($0.command) \($0.option)" })
        #expect(found == ["mint --access-token", "serve --replay", "gate --replay", "launcher --client-secret"], "\(found)")
    }

    // MARK: Login CSRF

    // MARK: Listener

    @Test("--idle-timeout outside 1 to 3600 seconds is refused by every entry point, naming the option", arguments: EntryPoint.allCases, ["0", "3601", "soon"])
    func idleTimeoutOutOfRange(entry: EntryPoint, value: String) async throws {
        let arguments = entry.arguments(host: "127.0.0.1", port: try freeLoopbackPort()) + ["--keyring", RepositoryFile.developmentKeyring, "--idle-timeout", value]
        let result = try await CLI.run(arguments, timeout: .seconds(20))
        #expect(result.status != 0, "\(arguments): \(result)")
        #expect(result.standardError.contains("idle-timeout"), "\(arguments): \(result)")
        #expect(!result.standardError.contains("listening on"), "nothing was served: \(result)")
    }

    /// Starts an entry point on loopback with the development keyring and `options`, once it
    /// says it listens.
    /// - Parameters:
    ///   - entry: The entry point.
    ///   - port: Its port.
    ///   - options: Options after its usual ones.
    ///   - directory: Where its standard error goes.
    /// - Returns: The running process.
    static func listening(_ entry: EntryPoint, port: Int, options: [String], in directory: TemporaryDirectory) async throws -> BackgroundSubprocess {
        let process = try BackgroundSubprocess(
            CLI.executablePath,
            entry.arguments(host: "127.0.0.1", port: port) + ["--keyring", RepositoryFile.developmentKeyring] + options,
            standardErrorPath: directory.path("\(entry.rawValue).log")
        )
        _ = try await process.firstLine(within: .seconds(20)) {
            $0.contains("listening on") || $0.hasPrefix("webapp-launch serving") || $0.hasPrefix("webapp-launch launcher on")
        }
        return process
    }

    @Test("--event-loops outside 1 to 64 is refused by every entry point, naming the option", arguments: EntryPoint.allCases, ["0", "65", "many"])
    func eventLoopsOutOfRange(entry: EntryPoint, value: String) async throws {
        let arguments = entry.arguments(host: "127.0.0.1", port: try freeLoopbackPort()) + ["--keyring", RepositoryFile.developmentKeyring, "--event-loops", value]
        let result = try await CLI.run(arguments, timeout: .seconds(20))
        #expect(result.status == 2, "\(arguments): \(result)")
        #expect(result.standardError.contains("event-loops"), "\(arguments): \(result)")
        #expect(!result.standardError.contains("listening on"), "nothing was served: \(result)")
    }

    @Test("--event-loops N runs the entry point's I/O on N event-loop threads, and it answers on them", arguments: EntryPoint.allCases, [1, 3])
    func eventLoopsSizeThePool(entry: EntryPoint, loops: Int) async throws {
        let directory = try TemporaryDirectory()
        let port = try freeLoopbackPort()
        let process = try await Self.listening(entry, port: port, options: ["--event-loops", "\(loops)"], in: directory)
        #expect(try await rawGet("/readyz", port: port).hasPrefix("HTTP/1.1 "))
        // NIO names its shared group's threads NIO-SGLTN-<group>-#<n>; nothing else does.
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/task")
        let names = tasks.compactMap { try? String(contentsOfFile: "/proc/\(process.pid)/task/\($0)/comm", encoding: .utf8) }
        let loopThreads = names.filter { $0.hasPrefix("NIO-SGLTN-") }
        #expect(loopThreads.count == loops, "\(names)")
        #expect(try await process.stop(within: .seconds(10)) == 0)
    }

    @Test("the gate's --upstream-idle-timeout outside 1 to 3600 seconds is refused, naming the timeouts", arguments: ["0", "3601"])
    func upstreamIdleTimeoutOutOfRange(value: String) async throws {
        let arguments = EntryPoint.gateReverseProxy.arguments(host: "127.0.0.1", port: try freeLoopbackPort())
            + ["--keyring", RepositoryFile.developmentKeyring, "--upstream-idle-timeout", value]
        let result = try await CLI.run(arguments, timeout: .seconds(20))
        #expect(result.status != 0, "\(arguments): \(result)")
        #expect(result.standardError.contains("timeouts must be 1 to 3600 seconds"), "\(result)")
    }

    @Test("--idle-timeout closes a silent connection on every entry point (the defaults are 30 s and more), and the next request is answered", arguments: EntryPoint.allCases)
    func idleTimeoutClosesSilentConnections(entry: EntryPoint) async throws {
        let directory = try TemporaryDirectory()
        let port = try freeLoopbackPort()
        let process = try await Self.listening(entry, port: port, options: ["--idle-timeout", "1"], in: directory)
        let lifetime = try await silentConnectionLifetime(port: port, limit: .seconds(8))
        let closedAfter = try #require(lifetime, "a silent connection was still open after 8 s")
        #expect(closedAfter >= .milliseconds(900) && closedAfter < .seconds(4), "closed after \(closedAfter)")
        #expect(try await rawGet("/readyz", port: port).hasPrefix("HTTP/1.1 "))
        #expect(try await process.stop(within: .seconds(10)) == 0)
    }

    // MARK: Connection persistence

    /// How a request asks for its connection to end with its answer (RFC 9112 §9.3), and the
    /// same request asking to keep it.
    enum ClosingRequest: CaseIterable, CustomStringConvertible {
        case http10WithoutKeepAlive, closeCapitalised, closeWithAnotherOption

        var description: String { "\(self.version) \(self.connection ?? "(no Connection field)")" }
        var version: String { self == .http10WithoutKeepAlive ? "HTTP/1.0" : "HTTP/1.1" }
        /// The `Connection` field that ends the connection.
        var connection: String? {
            switch self {
            case .http10WithoutKeepAlive: nil
            case .closeCapitalised: "Close"
            case .closeWithAnotherOption: "close, TE"
            }
        }
        /// The `Connection` field that keeps it, for the same version.
        var keepingConnection: String? { self == .http10WithoutKeepAlive ? "keep-alive" : nil }
    }

    /// A raw GET the entry point answers on its own path (a fresh launch for `serve`, a
    /// session's page for the reverse proxy, nginx's check for `/auth`, the catalogue without
    /// a token for the launcher), with `version` and `connection`.
    static func answeredRequest(_ entry: EntryPoint, running: Running?, cookie: String?, version: String, connection: String?) async throws -> String {
        var target = "/v1/catalogue"
        var fields = ["Host: 127.0.0.1"]
        switch entry {
        case .serve, .serveOnHummingbirdPath:
            let launch = try await mint(try #require(running), kvnumber: "A123456780")
            target = String(launch.dropFirst("http://127.0.0.1:\(try #require(running).port)".count))
        case .gateReverseProxy, .gateReverseProxyOnHummingbirdPath:
            target = "/page?x=1"
            fields.append("Cookie: \(try #require(cookie))")
        case .gateAuthRequest, .gateAuthRequestOnHummingbirdPath:
            target = "/auth"
            fields += ["Cookie: \(try #require(cookie))", "X-Original-Method: GET", "X-Original-URI: /page"]
        case .launcher:
            break
        }
        if let connection { fields.append("Connection: \(connection)") }
        return "GET \(target) \(version)\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n"
    }

    /// The answers in a raw exchange, in order: each one's status and head (its body skipped
    /// by its `Content-Length`).
    static func answers(_ text: String) -> [(status: Int, head: String)] {
        var bytes = Substring(text).utf8[...]
        var found: [(status: Int, head: String)] = []
        let separator = Array("\r\n\r\n".utf8)
        while let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) {
            let head = String(decoding: bytes[..<end], as: UTF8.self)
            let lines = head.components(separatedBy: "\r\n")
            guard let status = lines.first.flatMap({ Int($0.split(separator: " ").dropFirst().first ?? "") }) else { break }
            let length = lines.first { $0.lowercased().hasPrefix("content-length:") }.flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            found.append((status, head))
            bytes = bytes[bytes.index(end, offsetBy: separator.count)...].dropFirst(length)
        }
        return found
    }

    @Test("a request that does not keep its connection (HTTP/1.0 without keep-alive, Connection: Close, close with another option) gets its answer with Connection: close, then the close; the same request keeping it is answered and the connection goes on; on every entry point and path",
          arguments: EntryPoint.allCases + [.serveOnHummingbirdPath, .gateReverseProxyOnHummingbirdPath, .gateAuthRequestOnHummingbirdPath])
    func closingRequestEndsConnection(entry: EntryPoint) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var running: Running?
        let port: Int
        let process: BackgroundSubprocess
        if entry.holdsSessions {
            let started = try await Self.start(entry, in: directory)
            (running, port, process) = (started, started.port, started.process)
        } else {
            port = try freeLoopbackPort()
            process = try await Self.listening(entry, port: port, options: [], in: directory)
        }
        var cookie: String?
        if entry != .launcher, entry != .serve, entry != .serveOnHummingbirdPath, let running {
            let exchanged: String = try #require(try await Self.get(try await Self.mint(running, kvnumber: "A123456780")).cookie, "\(process.standardError)")
            cookie = exchanged
        }
        for closing in ClosingRequest.allCases {
            let kept = try await Self.answeredRequest(entry, running: running, cookie: cookie, version: closing.version, connection: closing.keepingConnection)
            let both = try await rawExchange([kept, "GET /not-a-page HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"], port: port)
            let keptAnswers = Self.answers(both.text)
            #expect(keptAnswers.count == 2 && both.closed, "\(closing) kept: \(keptAnswers.map(\.head))")
            #expect(keptAnswers.first.map { !$0.head.lowercased().contains("\r\nconnection: close") } == true, "\(closing) kept: \(keptAnswers.map(\.head))")

            // Alone: a request pipelined after it would be a parse error (NIO's parser takes no
            // bytes after a message that ends its connection).
            let request = try await Self.answeredRequest(entry, running: running, cookie: cookie, version: closing.version, connection: closing.connection)
            let ended = try await rawExchange([request], port: port)
            let endedAnswers = Self.answers(ended.text)
            #expect(ended.closed, "\(closing): the connection stayed open")
            #expect(endedAnswers.map(\.status) == keptAnswers.prefix(1).map(\.status), "\(closing): \(endedAnswers.map(\.head))")
            #expect(endedAnswers.first?.head.lowercased().components(separatedBy: "\r\n").contains("connection: close") == true, "\(closing): \(endedAnswers.map(\.head))")
        }
        #expect(try await process.stop(within: .seconds(10)) == 0)
        _ = try? await running?.upstream?.stop(within: .seconds(5))
    }

    /// A running entry point with a launch-minting registry for its app.
    struct Running {
        let process: BackgroundSubprocess
        let port: Int
        let appURL: String
        let registry: String
        let upstream: BackgroundSubprocess?
    }

    /// Starts an entry point that holds sessions, with the development keyring on loopback.
    static func start(_ entry: EntryPoint, in directory: TemporaryDirectory) async throws -> Running {
        let port = try freeLoopbackPort()
        var upstream: BackgroundSubprocess?
        var upstreamPort = 9
        if entry == .gateReverseProxy || entry == .gateReverseProxyOnHummingbirdPath {
            let started = try BackgroundSubprocess("/usr/bin/python3", [GateCommandTests.upstreamScript, "0"], standardErrorPath: directory.path("upstream.log"))
            upstreamPort = try #require(Int(try await started.firstLine(within: .seconds(15)) { $0.hasPrefix("listening ") }.dropFirst("listening ".count)))
            upstream = started
        }
        let appURL = entry == .serve || entry == .serveOnHummingbirdPath ? "http://127.0.0.1:\(port)/apps/healthmagazin" : "http://127.0.0.1:\(port)/"
        let process = try BackgroundSubprocess(
            CLI.executablePath,
            entry.arguments(host: "127.0.0.1", port: port, upstreamPort: upstreamPort) + ["--keyring", RepositoryFile.developmentKeyring],
            standardErrorPath: directory.path("\(entry.rawValue).log")
        )
        _ = try await process.firstLine(within: .seconds(20)) { $0.contains("listening on") || $0.hasPrefix("webapp-launch serving") }
        return Running(process: process, port: port, appURL: appURL, registry: try registry(at: appURL, in: directory), upstream: upstream)
    }

    /// Mints a launch for `kvnumber` (names and token fixed).
    static func mint(_ running: Running, kvnumber: String) async throws -> String {
        let result = try await CLI.run(["mint", "--app", "healthmagazin", "--keyring", RepositoryFile.developmentKeyring, "--registry", running.registry,
                                        "--access-token", "env:TOKEN", "--firstname", "Erika", "--lastname", "Mustermann", "--kvnumber", kvnumber],
                                       environment: ["TOKEN": "boundary-token-\(kvnumber)"])
        guard result.status == 0 else { throw SubprocessError(message: "mint failed: \(result)") }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sends a GET with headers; returns the status line's code and the session cookie set.
    static func get(_ url: String, headers: [String] = []) async throws -> (status: Int, cookie: String?) {
        let result = try await runSubprocess("/usr/bin/curl", ["-s", "-o", "/dev/null", "-D", "-", "--max-time", "10"] + headers.flatMap { ["-H", $0] } + [url], timeout: .seconds(15))
        let lines = result.standardOutput.split(separator: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? -1
        let cookie = lines.first { $0.lowercased().hasPrefix("set-cookie: ") }.map { String($0.dropFirst("set-cookie: ".count).prefix { $0 != ";" }) }
        return (status, cookie)
    }

    @Test("with user A's live session, user B's launch from a sibling subdomain (same-site) is refused; from the app itself it replaces the session",
          arguments: EntryPoint.launchPaths)
    func loginCSRFFromSibling(entry: EntryPoint) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let running = try await Self.start(entry, in: directory)
        let userA = try await Self.mint(running, kvnumber: "A123456780")
        let userB = try await Self.mint(running, kvnumber: "T012345678")
        let first = try await Self.get(userA)
        #expect(first.status == 303, "\(running.process.standardError)")
        let cookieA = try #require(first.cookie)
        let sibling = try await Self.get(userB, headers: ["Cookie: \(cookieA)", "Sec-Fetch-Site: same-site", "Origin: https://sibling.127.0.0.1.example"])
        #expect(sibling.status == 401, "a sibling must not swap the session")
        #expect(sibling.cookie == nil)
        let siblingFetchOnly = try await Self.get(userB, headers: ["Cookie: \(cookieA)", "Sec-Fetch-Site: same-site"])
        #expect(siblingFetchOnly.status == 401, "same-site is foreign even without an Origin")
        let own = try await Self.get(userB, headers: ["Cookie: \(cookieA)", "Sec-Fetch-Site: none"])
        #expect(own.status == 303, "the refused launch was not claimed; from the app itself it replaces the session")
        #expect(own.cookie != nil)
        #expect(running.process.standardError.contains("session_conflict"))
        #expect(try await running.process.stop(within: .seconds(10)) == 0)
        _ = try? await running.upstream?.stop(within: .seconds(5))
    }

    // MARK: nginx's /auth check

    @Test("the auth_request shape's /auth: 202 only for a live session with nginx's original request; spoofed identity fields, a launch, no original request or no session are refused, on both of its paths",
          arguments: [EntryPoint.gateAuthRequest, .gateAuthRequestOnHummingbirdPath])
    func authRequestCheck(entry: EntryPoint) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let running = try await Self.start(entry, in: directory)
        let exchanged = try await Self.get(try await Self.mint(running, kvnumber: "A123456780"))
        let cookie = try #require(exchanged.cookie, "\(running.process.standardError)")
        let auth = running.appURL + "auth"
        let original = ["Cookie: \(cookie)", "X-Original-Method: GET", "X-Original-URI: /page"]
        #expect(try await Self.get(auth, headers: original).status == 202)
        #expect(try await Self.get(auth, headers: original + ["X-WebApp-Launch-KVNR: B551029382"]).status == 403)
        #expect(try await Self.get(auth, headers: original + ["X_WebApp_Launch_Subject: B551029382"]).status == 403)
        #expect(try await Self.get(auth, headers: ["Cookie: \(cookie)", "X-Original-Method: GET", "X-Original-URI: /?launch=abc"]).status == 401)
        #expect(try await Self.get(auth, headers: ["Cookie: \(cookie)", "X-Original-Method: GET"]).status == 403)
        #expect(try await Self.get(auth, headers: ["X-Original-Method: GET", "X-Original-URI: /page"]).status == 401)
        // Which path answered: Hummingbird tags each request's log lines with its id.
        let spoofed = running.process.standardError.split(separator: "\n").filter { $0.contains("gate.spoofed_identity_header") }
        #expect(spoofed.count == 2, "\(running.process.standardError)")
        #expect(spoofed.allSatisfy { $0.contains("hb.request.id=") } == (entry == .gateAuthRequestOnHummingbirdPath))
        #expect(try await running.process.stop(within: .seconds(10)) == 0)
    }

    // MARK: The reverse proxy's identity

    @Test("the reverse proxy's GETs with a session: the app gets the session's identity only, never a client's identity field or the session cookie, on both of its paths",
          arguments: [EntryPoint.gateReverseProxy, .gateReverseProxyOnHummingbirdPath])
    func proxiedIdentity(entry: EntryPoint) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let running = try await Self.start(entry, in: directory)
        let exchanged = try await Self.get(try await Self.mint(running, kvnumber: "A123456780"))
        let cookie = try #require(exchanged.cookie, "\(running.process.standardError)")
        // Three times: from the second on, an idle upstream connection is there to relay on.
        for _ in 0..<3 {
            let result = try await runSubprocess(
                "/usr/bin/curl",
                ["-s", "--max-time", "10", "-H", "Cookie: \(cookie); app=1", "-H", "X-WebApp-Launch-KVNR: B551029382", "-H", "X_WebApp_Launch_Subject: B551029382",
                 running.appURL + "page?x=1"],
                timeout: .seconds(15)
            )
            let echo = result.standardOutput
            // The page shows the KVNRs it received masked (first and last character).
            #expect(echo.contains(#"id="header-kvnr">A********0<"#) && echo.contains(#"id="header-subject">A********0<"#), "the session's KVNR reached the app: \(echo.prefix(300))")
            #expect(!echo.contains("B********2") && !echo.contains("B551029382"), "a client's identity field reached the app")
            #expect(!echo.contains(String(cookie.drop { $0 != "=" }.dropFirst())), "the session cookie reached the app")
            #expect(echo.contains("app=1"), "the app's own cookie was dropped")
        }
        #expect(try await running.process.stop(within: .seconds(10)) == 0)
        _ = try? await running.upstream?.stop(within: .seconds(5))
    }

    // MARK: Redirect targets

    @Test("a configured redirect target that could leave the site is refused by both shapes of the gate", arguments: [EntryPoint.gateReverseProxy, .gateAuthRequest], [
        "/\\evil.example/", "//evil.example/", "https://evil.example/", "javascript:alert(1)", "/start\u{7}", "start",
    ])
    func configuredRedirect(entry: EntryPoint, target: String) async throws {
        var arguments = entry.arguments(host: "127.0.0.1", port: try freeLoopbackPort())
        arguments += ["--keyring", RepositoryFile.developmentKeyring, "--unauthenticated-redirect", target]
        try await Self.expectRefusal(arguments, mentioning: ["invalid_redirect"])
    }

    @Test("the auth_request fallback never echoes a path that reads as another site into Location", arguments: ["/\\evil.example/", "/%5Cevil.example", "/page?x=1"])
    func echoedRedirect(path: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let running = try await Self.start(.gateAuthRequest, in: directory)
        let launch = try await Self.mint(running, kvnumber: "A123456780")
        let cookie = try #require(try await Self.get(launch).cookie)
        let base = running.appURL.dropLast()  // no trailing slash
        let result = try await runSubprocess("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", "--path-as-is", "--max-time", "10",
                                                             "-H", "Cookie: \(cookie)", String(base) + path], timeout: .seconds(15))
        let parts = result.standardOutput.split(separator: " ", maxSplits: 1)
        #expect(parts.first == "303", "\(result)")
        let location = parts.count > 1 ? String(parts[1]) : ""
        #expect(location.hasPrefix(running.appURL), "stays on the gate's own origin: \(location)")
        #expect(!location.contains("evil.example") || path.hasPrefix("/%5C"), "\(location)")
        #expect(try await running.process.stop(within: .seconds(10)) == 0)
    }
}
