import Foundation
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchPostgres
import WebAppLaunchServer
import WebAppLaunchTestSupport
import WebAppRegistry

/// A throwaway PostgreSQL cluster on loopback, started through `scripts/pg-cluster` and
/// destroyed by its watchdog when the test process exits.
struct PostgresTestCluster: Sendable {
    let directory: String
    let url: String

    /// Starts a fresh cluster in its own directory, on a port from ``freeLoopbackPort()``
    /// (never one another test's server or cluster got, never one from the ephemeral range).
    static func start() async throws -> PostgresTestCluster {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wal-pg-\(UUID().uuidString.prefix(8))").path
        let url = try await run(["start", directory, String(try freeLoopbackPort())])
        return PostgresTestCluster(directory: directory, url: url)
    }

    /// Stops the server (the data stays), as an outage would: `fast` (sessions ended cleanly)
    /// or `immediate` (as a crash: no shutdown checkpoint, recovery at the next start).
    func stop(mode: String = "fast") async throws {
        TestTrace.note("postgres: stopping the cluster (\(mode))")
        _ = try await Self.run(["stop", directory, mode])
        TestTrace.note("postgres: cluster stopped")
    }

    /// Starts it again on the same port.
    func restart() async throws {
        TestTrace.note("postgres: restarting the cluster")
        _ = try await Self.run(["start", directory])
        TestTrace.note("postgres: cluster restarted")
    }

    /// The postmaster and its children (backends, background workers), to freeze the
    /// server with SIGSTOP as a hung database would be.
    func serverProcesses() throws -> [pid_t] {
        let pidFile = try String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8)
        guard let postmaster = pid_t(pidFile.split(separator: "\n").first ?? "") else {
            throw ClusterError(message: "no postmaster pid")
        }
        // Children from /proc: field 4 of /proc/PID/stat is the parent's pid.
        let children = try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == postmaster ? pid : nil
        }
        return [postmaster] + children
    }

    /// Stops and deletes it, on a blocking thread without waiting (it is called from `defer`,
    /// which cannot wait; a cluster still there when the test process exits is removed by its
    /// watchdog).
    func destroy() {
        let arguments = ["destroy", directory]
        offloadDetached { _ = try? Self.runBlocking(arguments) }
    }

    @discardableResult
    private static func run(_ arguments: [String]) async throws -> String {
        try await offload { try runBlocking(arguments) }
    }

    private static func runBlocking(_ arguments: [String]) throws -> String {
        let script = repositoryRoot.appendingPathComponent("scripts/pg-cluster").path
        let result = try runSubprocessBlocking(script, arguments, environment: ["WATCH_PID": String(getpid())])
        guard result.status == 0 else {
            throw ClusterError(message: "pg-cluster \(arguments.joined(separator: " ")) exited \(result.status)")
        }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct ClusterError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}

/// Keys, app and signer shared by the PostgreSQL suites.
enum PostgresFixtures {
    static let keyring = TestKeys.single(kid: "pg-test", secret: TestKeys.secret(0x5A))
    static let app = TestApps.loopbackMagazin
    static let registry = try! Registry(apps: [app])
    static let signer = try! LaunchSigner(keyring: keyring, registry: registry)
    static let user = TestUsers.jurgen

    /// The launch's path and query, to send to any instance (the audience is the public URL,
    /// which every instance behind the load balancer shares).
    static func launchPathAndQuery() throws -> String {
        let url = try signer.launchURL(for: app.id, user: user)
        return String(url.dropFirst("http://127.0.0.1:8080".count))
    }

    static func store(
        url: String,
        claimTimeout: Duration = .seconds(2),
        poolSize: Int = 8,
        statementsInFlight: Int = 2,
        allowsAsynchronousCommit: Bool = false,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws -> PostgresReplayStore {
        var configuration = PostgresReplayStore.Configuration(url: url)
        configuration.claimTimeout = claimTimeout
        configuration.poolSize = poolSize
        configuration.statementsInFlight = statementsInFlight
        configuration.connectTimeout = .seconds(1)
        configuration.allowsAsynchronousCommit = allowsAsynchronousCommit
        return try PostgresReplayStore(configuration: configuration, logger: Logger(label: "test.pg"), clock: clock)
    }
}

/// Runs the stores' services (pool and sweeper) for the duration of `body`, then cancels
/// them, as an application's service group would.
func withRunning<T: Sendable>(_ stores: PostgresReplayStore..., body: () async throws -> T) async throws -> T {
    let result = try await withThrowingTaskGroup(of: Void.self) { group in
        for store in stores { group.addTask { await store.run() } }
        defer {
            TestTrace.note("postgres: body ended, stopping \(stores.count) store(s)")
            group.cancelAll()
        }
        return try await body()
    }
    TestTrace.note("postgres: stores stopped")
    return result
}

/// A connection of its own to the cluster's `postgres` database (not pooled), for a test
/// that plays another session.
func connect(_ url: String, id: Int = 1, logger: Logger = Logger(label: "test.pg.session")) async throws -> PostgresConnection {
    let components = URLComponents(string: url)!
    let configuration = PostgresConnection.Configuration(
        host: components.host!, port: components.port!, username: components.user!, password: nil, database: "postgres", tls: .disable
    )
    return try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
}

/// How many claims the database holds, read with psql.
func claimCount(_ url: String) async throws -> Int {
    Int(try await psql(url, "SELECT COUNT(*) FROM webapp_launch_claims").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
}

/// Runs one query with psql and returns its unaligned output.
func psql(_ url: String, _ sql: String) async throws -> String {
    try await runSubprocess("/usr/bin/psql", [url, "-tAc", sql]).standardOutput
}

/// Runs a server on a free loopback port for the duration of `body`.
/// - Parameters:
///   - replayStore: The server's store.
///   - eventLoop: Whether launches are exchanged on the event loop (the default) or on
///     Hummingbird's path.
///   - logger: The server's logger; warnings only to the test's output by default.
func withRunningServer<T: Sendable>(
    replayStore: any ReplayStore,
    eventLoop: Bool = true,
    logger: Logger? = nil,
    _ body: @Sendable (Int) async throws -> T
) async throws -> T {
    var configuration = WebAppServerConfiguration(
        keyring: PostgresFixtures.keyring,
        registry: PostgresFixtures.registry,
        apps: [ServedApp(PostgresFixtures.app)]
    )
    configuration.port = 0
    configuration.answersLaunchesOnEventLoop = eventLoop
    let logger = logger ?? {
        var logger = Logger(label: "test.server")
        logger.logLevel = .warning
        return logger
    }()
    let server = try WebAppServer(configuration: configuration, replayStore: replayStore, logger: logger)
    let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let application = server.makeApplication { channel in
        portContinuation.yield(channel.localAddress?.port ?? 0)
        portContinuation.finish()
    }
    // The stream also ends when the server stops without having started (a port taken, a
    // bind refused), so the wait below can never outlive it.
    let running = Task {
        defer { portContinuation.finish() }
        try await application.run()
    }
    defer { running.cancel() }
    var iterator = portStream.makeAsyncIterator()
    guard let port = await iterator.next(), port > 0 else {
        let failure = await running.result
        throw PostgresTestCluster.ClusterError(message: "the server did not start: \(failure)")
    }
    TestTrace.note("postgres: server listening on port \(port)")
    defer { TestTrace.note("postgres: server body ended") }
    return try await body(port)
}

/// Sends GET requests with curl, many at once, and returns each status code.
/// - Parameter urls: Full URLs on loopback.
func statusCodes(of urls: [String], parallel: Int = 64) async throws -> [Int] {
    TestTrace.note("postgres: requesting \(urls.count) URL(s) with curl")
    defer { TestTrace.note("postgres: curl ended") }
    return try await offload { try blockingStatusCodes(of: urls, parallel: parallel) }
}

private func blockingStatusCodes(of urls: [String], parallel: Int) throws -> [Int] {
    var arguments = ["--silent", "--parallel", "--parallel-immediate", "--parallel-max", String(parallel), "--max-time", "10"]
    for url in urls {
        arguments += ["--output", "/dev/null", "--write-out", "%{http_code}\\n", url]
    }
    let result = try runSubprocessBlocking("/usr/bin/curl", arguments, timeout: .seconds(60))
    return result.standardOutput.split(separator: "\n").compactMap { Int($0) }
}
