import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import WebAppLaunch
import WebAppLaunchGate
import WebAppLaunchMiddleware
import WebAppLaunchTestSupport
import WebAppRegistry

/// The files of the checkout the gate suites read.
extension RepositoryFile {
    static let echoUpstreamScript = path("Tests/WebAppLaunchGateTests/Fixtures/echo_upstream.py")
    static let nginxConfiguration = path("Docs/nginx-auth-request.conf")
}

/// The keys, users and launches the gate tests use.
enum GateFixtures {
    static let appID = "healthmagazin"
    /// A production keyring (not development): the gate refuses development keys off loopback.
    static let keyring = TestKeys.single(kid: "gate-test", secret: TestKeys.secret(0x61), isDevelopment: false)
    /// The gate's keys: the app keyring exported from ``keyring``, as a partner holds them.
    static let appKeyring = try! keyring.exportingApp(appID)
    /// A user whose names need the header encoding: umlauts, ß, an apostrophe, a hyphen, a space.
    static let user = TestUsers.headerEncoded
    /// A second user, for "session of A, then launch of B".
    static let userB = TestUsers.berta

    /// A launch URL for `publicURL`, minted as the launcher would.
    static func launchURL(for publicURL: RegisteredURL, user: LaunchUser = user) throws -> String {
        let registry = try Registry(apps: [WebApp(id: appID, title: "Gesundheitsmagazin", url: publicURL)])
        return try LaunchSigner(keyring: keyring, registry: registry).launchURL(forRegisteredURL: publicURL, user: user)
    }
}

/// The Python standard-library echo upstream (`Fixtures/echo_upstream.py`), on a loopback port.
final class EchoUpstream {
    let process: BackgroundSubprocess
    let port: Int
    private let directory: TemporaryDirectory

    /// The origin's scheme: `https` when the upstream listens with TLS.
    let scheme: String

    /// Starts the upstream on a free loopback port.
    /// - Parameters:
    ///   - tls: A certificate and its key: the upstream listens with TLS (`https`).
    ///   - onlyTLS11: With `tls`, it speaks TLS 1.1 and nothing newer (an outdated server).
    init(tls: TestCertificate? = nil, onlyTLS11: Bool = false) async throws {
        directory = try TemporaryDirectory()
        scheme = tls == nil ? "http" : "https"
        let tlsArguments = tls.map { [$0.certificate, $0.key] + (onlyTLS11 ? ["tls1.1"] : []) } ?? []
        process = try BackgroundSubprocess(
            "/usr/bin/python3", [RepositoryFile.echoUpstreamScript, "0"] + tlsArguments,
            standardErrorPath: directory.path("upstream.log")
        )
        let line = try await process.firstLine(within: .seconds(15)) { $0.hasPrefix("listening ") }
        guard let port = Int(line.dropFirst("listening ".count)) else {
            throw SubprocessError(message: "echo upstream printed \(line)")
        }
        self.port = port
    }

    var origin: String { "\(scheme)://127.0.0.1:\(port)" }

    deinit { _ = try? process.stopBlocking(within: .seconds(5)) }
}

/// What came back from a request.
struct Reply: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let body: String

    /// The echo upstream's JSON.
    var echo: Echo {
        get throws {
            guard let data = body.data(using: .utf8),
                  let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let headers = object["headers"] as? [[String]],
                  let identity = object["identity"] as? [String: String]
            else { throw SubprocessError(message: "not an echo (status \(status)): \(body.prefix(300))") }
            return Echo(
                headers: headers.map { ($0[0], $0[1]) },
                identity: Dictionary(identity.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a }),
                bodyLength: object["body_length"] as? Int ?? -1,
                tlsVersion: object["tls"] as? String
            )
        }
    }

    /// The `name=value` of the session cookie this reply sets.
    var sessionCookie: String? {
        headers["set-cookie"].lazy.compactMap { value -> String? in
            let pair = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            return pair.hasPrefix("webapp_launch_session=") || pair.hasPrefix("__Host-webapp_launch_session_") ? pair : nil
        }.first
    }
}

/// What the upstream received, as it reported it.
struct Echo {
    let headers: [(String, String)]
    /// Identity headers, decoded by Python, by lower-cased name.
    let identity: [String: String]
    let bodyLength: Int
    /// The TLS version the request came over (`TLSv1.3`), or `nil` for plain HTTP.
    let tlsVersion: String?

    /// Every received value of a header, by case-insensitive name.
    func values(_ name: String) -> [String] {
        headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
    }

    /// The received header names that start with the identity prefix, lower-cased.
    var identityNames: [String] {
        headers.map { $0.0.lowercased() }.filter { $0.hasPrefix("x-webapp-launch-") }
    }
}

/// A client that shows the gate's answers as they are: no redirects followed, no cookies kept.
final class TestClient: Sendable {
    let client: HTTPClient

    init() {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(20))
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    func send(
        _ url: String,
        method: HTTPMethod = .GET,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil,
        streamed: Bool = false
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            if streamed {
                let chunks = stride(from: 0, to: body.count, by: 256).map { ByteBuffer(bytes: body[$0..<min($0 + 256, body.count)]) }
                request.body = .stream(chunks.async, length: .unknown)
            } else {
                request.body = .bytes(ByteBuffer(bytes: body))
            }
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 64 * 1024 * 1024)
        return Reply(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
    }

    /// Exchanges a launch at `url` and returns the session cookie (`name=value`).
    func exchange(_ url: String) async throws -> String {
        let reply = try await send(url)
        guard reply.status == 303, let cookie = reply.sessionCookie else {
            throw SubprocessError(message: "launch not exchanged: \(reply.status) \(reply.body.prefix(200))")
        }
        return cookie
    }

    func shutdown() async throws { try await client.shutdown() }
}

extension Array where Element: Sendable {
    /// The elements as an async sequence.
    var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}

/// Runs a gate in this process on a loopback port for the duration of `body`.
/// - Parameters:
///   - mode: Reverse proxy to an upstream, or auth_request.
///   - publicPort: The port in the public URL (the gate's own, or nginx's in front of it).
///   - gatePort: The port the gate binds.
///   - adjust: Changes to the default test configuration.
///   - logs: Where the gate's lines are captured (every level), or `nil` to log nothing.
///   - reloadingKeyring: Where a reload reads the keyring, or `nil` for none.
///   - gateStarted: Gets the gate before it listens (to reload it).
///   - body: Runs with the gate listening; gets the public URL.
func withGate(
    mode: GateConfiguration.Mode,
    gatePort: Int? = nil,
    publicPort: Int? = nil,
    publicScheme: String = "http",
    adjust: (inout GateConfiguration) -> Void = { _ in },
    logs: LogCapture? = nil,
    reloadingKeyring: (@Sendable () async throws -> Keyring)? = nil,
    started gateStarted: @Sendable (WebAppGate) -> Void = { _ in },
    onMetricsServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in },
    _ body: @Sendable (RegisteredURL, TestClient) async throws -> Void
) async throws {
    let port = try gatePort ?? freeLoopbackPort()
    let publicURL = try RegisteredURL("\(publicScheme)://127.0.0.1:\(publicPort ?? port)/")
    var configuration = GateConfiguration(appID: GateFixtures.appID, publicURL: publicURL, keyring: GateFixtures.appKeyring, mode: mode)
    configuration.port = port
    configuration.responseTimeout = .seconds(5)
    adjust(&configuration)
    var logger = logs?.makeLogger(label: "gate-test") ?? Logger(label: "gate-test")
    if logs == nil { logger.logLevel = .critical }
    let gate = try WebAppGate(configuration: configuration, replayStore: InMemoryReplayStore(), logger: logger, reloadingKeyring: reloadingKeyring)
    gateStarted(gate)
    let (started, continuation) = AsyncStream<Void>.makeStream()
    let application = gate.makeApplication(onServerRunning: { _ in continuation.yield() }, onMetricsServerRunning: onMetricsServerRunning)
    let group = ServiceGroup(services: [application], gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
    let client = TestClient()
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        // The stream also ends when the gate stops without having started (its port taken
        // by another test meanwhile): the wait ends and the group's error is thrown.
        tasks.addTask {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = started.makeAsyncIterator()
        guard await iterator.next() != nil else {
            try? await client.shutdown()
            try await tasks.waitForAll()
            throw GateDidNotStart()
        }
        do {
            try await body(publicURL, client)
        } catch {
            await group.triggerGracefulShutdown()
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
    }
}

/// The gate under test stopped before it listened, without an error of its own.
struct GateDidNotStart: Error, CustomStringConvertible {
    var description: String { "the gate stopped before it started listening" }
}
