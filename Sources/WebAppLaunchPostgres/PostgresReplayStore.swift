import Foundation
import Logging
import Metrics
import NIOCore
import NIOSSL
import PostgresNIO
import ServiceLifecycle
import Synchronization
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppRegistry

/// A replay store in PostgreSQL, shared by every instance of a web app: a launch used on
/// instance A is rejected on instance B. This is how the verifier scales out.
///
/// Schema (created on first use if missing):
/// ```sql
/// CREATE TABLE webapp_launch_claims (
///     replay_id  BYTEA  PRIMARY KEY,   -- keyed hash of the nonce (ReplayID), never the nonce
///     expires_at BIGINT NOT NULL       -- ReplayRetention.deadline: exp + 600 + 300
/// );
/// CREATE INDEX webapp_launch_claims_expiry ON webapp_launch_claims (expires_at);
/// ```
/// A claim is an `INSERT … ON CONFLICT DO NOTHING RETURNING`, atomic under any concurrency;
/// claims that arrive while others are in flight share one such statement (``ClaimBatcher``:
/// one commit for the batch, every claim still answered on its own, exactly once), a named
/// prepared statement on each connection (`InsertClaimsStatement`). Each statement slot
/// keeps its pooled connection while claims keep coming and returns it once none came for
/// a watch interval, so a busy store leases a connection once per burst rather than once
/// per statement. Behind a connection pooler, use one that keeps prepared statements per
/// server connection (PgBouncer 1.21 or later with `max_prepared_statements`, or session
/// pooling), or claims fail (503). The store is a `Service`: run it in the application's
/// service group (its `run()` drives the connection pool and the sweeper, and returns on
/// graceful shutdown).
/// Every claim is answered by its deadline (the batcher watches them), and every statement
/// has a deadline that cancels it (a query in flight is stopped by closing its connection):
/// when PostgreSQL is unreachable, slow or restarting, claims throw ``ReplayStoreError``
/// (the middleware answers 503) and the pool reconnects by itself once the database is
/// back. Nothing is ever accepted that was not recorded.
public final class PostgresReplayStore: ReplayStore, Service {
    /// Connection and timing settings.
    public struct Configuration: Sendable {
        /// `postgres://user:password@host:port/database[?sslmode=disable|prefer|require]`.
        /// Without `sslmode`, TLS is required for any host but loopback.
        public var url: String
        /// Most connections in the pool: each statement slot holds one while claims keep
        /// coming, and the sweeper takes one every ``sweepInterval``.
        public var poolSize: Int = 8
        /// Most claim statements running at once, each on its own connection (at most
        /// ``poolSize``). Claims that arrive meanwhile wait and go out together in the next
        /// statement, so fewer statements in flight mean bigger batches and fewer commits.
        /// Two keep a nearby database busy (one statement executing while the next is on
        /// its way): measured on loopback, 2 and 4 gave the same launches/s and 8 a tenth
        /// fewer. Raise it when round trips to the database dominate.
        public var statementsInFlight: Int = 2
        /// Longest wait for a new connection.
        public var connectTimeout: Duration = .seconds(2)
        /// Longest wait for one claim, connection lease included; then the launch gets 503.
        public var claimTimeout: Duration = .seconds(2)
        /// How often expired rows are deleted (and the size gauge updated).
        public var sweepInterval: Duration = .seconds(30)

        /// Creates settings for a database URL.
        /// - Parameter url: The connection URL (it may carry a password: it is never logged).
        public init(url: String) { self.url = url }
    }

    private let client: PostgresClient
    private let configuration: Configuration
    private let logger: Logger
    private let clock: @Sendable () -> Date
    private let size: Gauge
    /// Concurrent claims, gathered into one statement per batch.
    private let batcher: ClaimBatcher<ContinuousClock>
    /// Whether this store has seen the table exist. Invariant: only ever goes from `false` to `true`.
    private let schemaReady = Atomic<Bool>(false)

    /// The table holding claims.
    public static let tableName = "webapp_launch_claims"

    /// Creates the store. Connects nothing yet: ``run()`` drives the pool, and while the
    /// database is down claims fail (503) until it is up.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - logger: For the store's own events (never the URL or password).
    ///   - clock: The current time, for the sweeper (claims get `now` from their caller).
    ///   - metricsFactory: Where the size gauge is reported; the global metrics system by default.
    /// - Throws: ``ReplayStoreError/Code/invalidConfiguration`` for a malformed URL.
    public init(
        configuration: Configuration,
        logger: Logger,
        clock: @escaping @Sendable () -> Date = { Date() },
        metricsFactory: (any MetricsFactory)? = nil
    ) throws {
        self.configuration = configuration
        self.logger = logger
        self.clock = clock
        size = Gauge(label: ReplayStoreMetrics.sizeLabel, factory: metricsFactory ?? MetricsSystem.factory)
        batcher = ClaimBatcher(
            maximumInFlight: min(max(1, configuration.statementsInFlight), configuration.poolSize),
            claimTimeout: configuration.claimTimeout
        )
        var clientConfiguration = try Self.clientConfiguration(from: configuration.url)
        clientConfiguration.options.maximumConnections = configuration.poolSize
        clientConfiguration.options.connectTimeout = configuration.connectTimeout
        clientConfiguration.options.minimumConnections = 0
        var backgroundLogger = logger
        backgroundLogger.logLevel = max(logger.logLevel, .warning)
        client = PostgresClient(configuration: clientConfiguration, backgroundLogger: backgroundLogger)
    }

    /// Runs the connection pool and the sweeper until graceful shutdown or cancellation.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                await self.client.run()
                self.batcher.close()  // no pool, no claims: fail what waits, stop the dispatcher
            }
            group.addTask {
                // Each statement slot holds a pooled connection while claims keep coming (and
                // a watch interval after), leaving one the database closed meanwhile.
                await self.batcher.run(
                    lanes: { use in try await self.client.withConnection { connection in await use(connection) } },
                    isOpen: { connection in !connection.isClosed },
                    send: { batch, connection in try await self.insert(batch, on: connection) }
                )
            }
            group.addTask {
                try? await cancelWhenGracefulShutdown { try await self.sweepPeriodically() }
            }
        }
    }

    private func sweepPeriodically() async throws {
        while !Task.isCancelled {
            try await Task.sleep(for: configuration.sweepInterval)
            do {
                try await sweep(now: UnixSeconds.of(clock()))
            } catch {
                logger.warning("replay_store.sweep_failed", metadata: ["store": "postgres"])
            }
        }
    }

    public func claim(_ id: ReplayID, until deadline: UInt64, now: UInt64) async throws -> Bool {
        // The batcher holds the claim's deadline (no timer task per claim); every failure,
        // the caller's cancellation included, is `unavailable`, as from the SQLite store.
        do {
            return try await batcher.claim(id, expiresAt: Int64(clamping: deadline))
        } catch let error as ReplayStoreError {
            throw error
        } catch {
            throw ReplayStoreError(.unavailable, "PostgreSQL failed: \(String(describing: type(of: error)))")
        }
    }

    /// Records one batch of claims in one statement and returns the ids it recorded first
    /// (`RETURNING` yields only rows actually inserted; an id already present is skipped).
    /// Its deadline is the batcher's: once every claim in the batch has expired, the batcher
    /// cancels this task, which closes the connection under a query still in flight.
    /// - Parameters:
    ///   - batch: The claims, unique and ascending.
    ///   - connection: The statement slot's connection (leased by the batcher's lane).
    private func insert(_ batch: ClaimBatch, on connection: PostgresConnection) async throws -> Set<ReplayID> {
        let statement = InsertClaimsStatement(batch)
        return try await closingOnCancel(connection) {
            try await self.ensureSchema(on: connection)
            var recorded = Set<ReplayID>()
            for try await id in try await connection.execute(statement, logger: self.logger) {
                if let id { recorded.insert(id) }
            }
            return recorded
        }
    }

    /// Deletes expired rows now and records the size gauge (the sweeper does this every sweep
    /// interval while the store runs).
    /// - Parameter now: Seconds since 1970.
    /// - Returns: How many rows were deleted.
    @discardableResult
    public func sweep(now: UInt64) async throws -> Int {
        try await withDeadline(configuration.claimTimeout * 5) {
            try await self.onConnection { connection in
                try await self.ensureSchema(on: connection)
                let cutoff = Int64(clamping: now)
                let deleted = try await self.count("DELETE FROM webapp_launch_claims WHERE expires_at <= \(cutoff) RETURNING 1", on: connection)
                var total: Int64 = 0
                let rows = try await connection.query("SELECT COUNT(*)::BIGINT FROM webapp_launch_claims", logger: self.logger)
                for try await value in rows.decode(Int64.self) { total = value }
                self.size.record(total)
                return deleted
            }
        }
    }

    /// Runs a statement and counts the rows it returns.
    private func count(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> Int {
        var rows = 0
        for try await _ in try await connection.query(query, logger: logger) { rows += 1 }
        return rows
    }

    /// Runs `body` on one pooled connection, closed if the calling task is cancelled.
    private func onConnection<Value: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Value) async throws -> Value {
        try await client.withConnection { connection in try await closingOnCancel(connection) { try await body(connection) } }
    }

    /// Runs `body`, closing `connection` if the calling task is cancelled meanwhile: that
    /// fails a query stuck in flight at once (the pool replaces the connection), which is
    /// how every statement's deadline ends it.
    private func closingOnCancel<Value: Sendable>(
        _ connection: PostgresConnection,
        _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withTaskCancellationHandler {
            try await body()
        } onCancel: {
            let closed: EventLoopFuture<Void> = connection.close()
            closed.whenComplete { _ in }
        }
    }

    /// Creates the table the first time this store needs it, on the connection at hand (a
    /// statement slot may hold the pool's only one). Concurrent first claims may collide
    /// inside PostgreSQL's catalog (two `CREATE TABLE IF NOT EXISTS` at once); one retry
    /// absorbs that, within the claim's deadline.
    private func ensureSchema(on connection: PostgresConnection) async throws {
        guard !schemaReady.load(ordering: .acquiring) else { return }
        do {
            try await createSchema(on: connection)
        } catch {
            try await Task.sleep(for: .milliseconds(50))
            try await createSchema(on: connection)
        }
        schemaReady.store(true, ordering: .releasing)
    }

    private func createSchema(on connection: PostgresConnection) async throws {
        _ = try await count("CREATE TABLE IF NOT EXISTS webapp_launch_claims (replay_id BYTEA PRIMARY KEY, expires_at BIGINT NOT NULL)", on: connection)
        _ = try await count("CREATE INDEX IF NOT EXISTS webapp_launch_claims_expiry ON webapp_launch_claims (expires_at)", on: connection)
    }

    /// Runs `operation` with a deadline: whichever of the operation and the timer finishes
    /// first wins, and the other is cancelled (the operation's query with it). Any failure is
    /// ``ReplayStoreError/Code/unavailable``, the same error the SQLite store throws.
    private func withDeadline<T: Sendable>(
        _ timeout: Duration,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        do {
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { try await operation() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let value = first else {
                    throw ReplayStoreError(.unavailable, "PostgreSQL did not answer within \(timeout)")
                }
                return value
            }
        } catch let error as ReplayStoreError {
            throw error
        } catch {
            throw ReplayStoreError(.unavailable, "PostgreSQL failed: \(String(describing: type(of: error)))")
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
        let tls: PostgresClient.Configuration.TLS
        switch try sslMode(named: components.queryItems?.first { $0.name == "sslmode" }?.value, host: host) {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(.makeClientConfiguration())
        default: tls = .require(.makeClientConfiguration())
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

    /// The TLS mode for a connection: the URL's `sslmode` when given, else `prefer` on
    /// loopback and `require` anywhere else, so TLS is never skipped silently across a network.
    /// - Parameters:
    ///   - name: The URL's `sslmode`, or `nil`.
    ///   - host: The database host.
    /// - Returns: `disable`, `prefer` or `require`.
    /// - Throws: ``ReplayStoreError/Code/invalidConfiguration`` for any other name.
    static func sslMode(named name: String?, host: String) throws -> String {
        let mode = name ?? (RegisteredURL.isLoopback(host.lowercased()) ? "prefer" : "require")
        guard ["disable", "prefer", "require"].contains(mode) else {
            throw ReplayStoreError(.invalidConfiguration, "sslmode must be disable, prefer or require")
        }
        return mode
    }
}
