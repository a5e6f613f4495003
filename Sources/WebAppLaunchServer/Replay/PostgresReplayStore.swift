import Foundation
import Logging
import NIOSSL
import PostgresNIO
import Synchronization
import WebAppLaunch

/// A replay store in PostgreSQL, shared by every instance of a web app: a launch used on
/// instance A is rejected on instance B. This is how the verifier scales out.
///
/// Schema (created on first use if missing):
/// ```sql
/// CREATE TABLE webapp_launch_claims (
///     replay_id  BYTEA  PRIMARY KEY,   -- keyed hash of the nonce (ReplayID), never the nonce
///     expires_at BIGINT NOT NULL       -- exp + skew, seconds since 1970
/// );
/// CREATE INDEX webapp_launch_claims_expiry ON webapp_launch_claims (expires_at);
/// ```
/// A claim is one statement, `INSERT … ON CONFLICT DO NOTHING RETURNING`, atomic under any
/// concurrency. A background task deletes expired rows. Every claim has a deadline: when
/// PostgreSQL is unreachable, slow or restarting, claims throw (the server answers 503) and
/// the pool reconnects by itself once the database is back. Nothing is ever accepted that
/// was not recorded.
public final class PostgresReplayStore: ReplayStore {
    /// Connection and timing settings.
    public struct Configuration: Sendable {
        /// `postgres://user:password@host:port/database[?sslmode=disable|prefer|require]`.
        public var url: String
        /// Most connections in the pool.
        public var poolSize: Int = 8
        /// Longest wait for a new connection.
        public var connectTimeout: Duration = .seconds(2)
        /// Longest wait for one claim, connection lease included; then the launch gets 503.
        public var claimTimeout: Duration = .seconds(2)
        /// How often expired rows are deleted.
        public var sweepInterval: Duration = .seconds(30)

        /// Creates settings for a database URL.
        /// - Parameter url: The connection URL (it may carry a password: it is never logged).
        public init(url: String) { self.url = url }
    }

    private let client: PostgresClient
    private let configuration: Configuration
    private let logger: Logger
    private let schema = Mutex<Task<Void, any Error>?>(nil)
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// The table holding claims.
    public static let tableName = "webapp_launch_claims"

    /// Creates the store and starts its connection pool and sweeper. Does not wait for the
    /// database: if it is down, claims fail (503) until it is up.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - logger: For the store's own events (never the URL or password).
    /// - Throws: ``ReplayStoreError/Code/invalidConfiguration`` for a malformed URL.
    public init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        var clientConfiguration = try Self.clientConfiguration(from: configuration.url)
        clientConfiguration.options.maximumConnections = configuration.poolSize
        clientConfiguration.options.connectTimeout = configuration.connectTimeout
        clientConfiguration.options.minimumConnections = 0
        var backgroundLogger = logger
        backgroundLogger.logLevel = max(logger.logLevel, .warning)
        client = PostgresClient(configuration: clientConfiguration, backgroundLogger: backgroundLogger)
        let client = client
        let runner = Task { await client.run() }
        let sweepInterval = configuration.sweepInterval
        let sweeper = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: sweepInterval)
                guard let self, !Task.isCancelled else { return }
                _ = try? await self.sweep(now: UInt64(Date().timeIntervalSince1970))
            }
        }
        tasks.withLock { $0 = [runner, sweeper] }
    }

    /// Connects with default settings (the `--replay postgres://…` path).
    /// - Parameters:
    ///   - url: The database URL.
    ///   - logger: The logger.
    /// - Returns: The store.
    public static func connect(url: String, logger: Logger) async throws -> PostgresReplayStore {
        try PostgresReplayStore(configuration: Configuration(url: url), logger: logger)
    }

    deinit {
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }

    /// Stops the pool and the sweeper.
    public func shutdown() {
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }

    public func claim(_ id: ReplayID, until deadline: UInt64, now: UInt64) async throws -> Bool {
        try await withDeadline(configuration.claimTimeout) { [client] in
            try await self.ensureSchema()
            let bytes = ByteBuffer(bytes: id.bytes)
            let expiresAt = Int64(clamping: deadline)
            let rows = try await client.query(
                "INSERT INTO webapp_launch_claims (replay_id, expires_at) VALUES (\(bytes), \(expiresAt)) ON CONFLICT (replay_id) DO NOTHING RETURNING 1"
            )
            var inserted = 0
            for try await _ in rows { inserted += 1 }
            return inserted == 1
        }
    }

    public func count() async throws -> Int {
        try await withDeadline(configuration.claimTimeout) { [client] in
            try await self.ensureSchema()
            let rows = try await client.query("SELECT COUNT(*)::BIGINT FROM webapp_launch_claims")
            var total: Int64 = 0
            for try await value in rows.decode(Int64.self) { total = value }
            return Int(total)
        }
    }

    /// Deletes expired rows now (the background task does this every sweep interval).
    /// - Parameter now: Seconds since 1970.
    /// - Returns: How many rows were deleted.
    @discardableResult
    public func sweep(now: UInt64) async throws -> Int {
        try await withDeadline(configuration.claimTimeout * 5) { [client] in
            try await self.ensureSchema()
            let cutoff = Int64(clamping: now)
            let rows = try await client.query("DELETE FROM webapp_launch_claims WHERE expires_at <= \(cutoff) RETURNING 1")
            var deleted = 0
            for try await _ in rows { deleted += 1 }
            return deleted
        }
    }

    /// Creates the table once per store. Concurrent callers share one attempt (concurrent
    /// `CREATE TABLE IF NOT EXISTS` can collide inside PostgreSQL's catalog); a failed attempt
    /// is forgotten so the next claim tries again, and one retry absorbs the race between
    /// two instances starting at once.
    private func ensureSchema() async throws {
        let client = client
        let attempt = schema.withLock { current in
            if let current { return current }
            let task = Task {
                do {
                    try await Self.createSchema(client)
                } catch {
                    try await Task.sleep(for: .milliseconds(50))
                    try await Self.createSchema(client)
                }
            }
            current = task
            return task
        }
        do {
            try await attempt.value
        } catch {
            schema.withLock { current in if current == attempt { current = nil } }
            throw error
        }
    }

    private static func createSchema(_ client: PostgresClient) async throws {
        try await client.query(
            "CREATE TABLE IF NOT EXISTS webapp_launch_claims (replay_id BYTEA PRIMARY KEY, expires_at BIGINT NOT NULL)"
        )
        try await client.query(
            "CREATE INDEX IF NOT EXISTS webapp_launch_claims_expiry ON webapp_launch_claims (expires_at)"
        )
    }

    /// Runs `operation`, throwing ``ReplayStoreError/Code/unavailable`` if it fails or does not
    /// finish in time. The operation keeps running detached when it times out; its result is
    /// dropped (a late insert only makes the store stricter).
    private func withDeadline<T: Sendable>(
        _ timeout: Duration,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let outcome = OneShot()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let work = Task {
                do {
                    let value = try await operation()
                    if outcome.fire() { continuation.resume(returning: value) }
                } catch {
                    if outcome.fire() {
                        continuation.resume(throwing: ReplayStoreError(.unavailable, "PostgreSQL failed: \(String(describing: type(of: error)))"))
                    }
                }
            }
            Task {
                try? await Task.sleep(for: timeout)
                if outcome.fire() {
                    work.cancel()
                    continuation.resume(throwing: ReplayStoreError(.unavailable, "PostgreSQL did not answer within \(timeout)"))
                }
            }
        }
    }

    static func clientConfiguration(from url: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url),
              components.scheme == "postgres" || components.scheme == "postgresql",
              let host = components.host, !host.isEmpty,
              let username = components.user, !username.isEmpty
        else {
            throw ReplayStoreError(.invalidConfiguration, "the PostgreSQL URL must be postgres://user[:password]@host[:port]/database")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let sslmode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        let tls: PostgresClient.Configuration.TLS
        switch sslmode {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(.makeClientConfiguration())
        case "require": tls = .require(.makeClientConfiguration())
        default: throw ReplayStoreError(.invalidConfiguration, "sslmode must be disable, prefer or require")
        }
        return PostgresClient.Configuration(
            host: host,
            port: components.port ?? 5432,
            username: username,
            password: components.password,
            database: database.isEmpty ? nil : database,
            tls: tls
        )
    }
}

/// A flag that can be raised once: decides which of a result and a timeout resumes a
/// continuation (exactly one may).
private final class OneShot: Sendable {
    private let fired = Mutex(false)

    /// Returns `true` for the first caller only.
    func fire() -> Bool {
        fired.withLock { fired in
            guard !fired else { return false }
            fired = true
            return true
        }
    }
}
