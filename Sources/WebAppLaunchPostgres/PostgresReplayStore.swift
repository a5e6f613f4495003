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
///     expires_at BIGINT NOT NULL,      -- ReplayRetention.deadline: exp + 600 + 300
///     attempt    BIGINT                -- the statement that recorded it (added if missing)
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
/// has a deadline that abandons it (its connection is closed and nothing waits for the
/// query, which the driver may never answer): when PostgreSQL is unreachable, slow,
/// restarting or paused, claims throw ``ReplayStoreError`` (the middleware answers 503),
/// the abandoned statement's slot opens a new connection, and the pool reconnects by itself
/// once the database is back; ``run()`` returns within a claim timeout of graceful shutdown
/// whatever the database does. Nothing is ever accepted that was not recorded, and the
/// database refuses a claim that reaches it after its deadline, so a claim answered 503
/// is not recorded later (`InsertClaimsStatement`). Where the database recorded one all the
/// same (it committed a statement the store had given up on, or the connection broke after
/// the commit), the store's next statements delete that row, and only it, so the user's
/// retry is granted (`ClaimRelease`). ``readiness()`` reports whether claims
/// are succeeding, for `/readyz`. The store requires durable commits: before its first
/// claim it checks `synchronous_commit` and refuses to claim while it is `off`, unless
/// ``Configuration/allowsAsynchronousCommit``.
public final class PostgresReplayStore: CallbackReplayStore, Service {
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
        /// One is the cheapest for the server and the database alike: on loopback, sharing
        /// two cores with the server, one gave less server CPU per launch than two in 7 of 7
        /// interleaved pairs (paired median 0.83), more launches/s in every pair and a lower
        /// p99 in six (BENCHMARKS.md, 28 Nov; six pairs of another build, earlier, had shown
        /// no clear difference); before that, 2 and 4 gave the same launches/s and 8 a tenth
        /// fewer. A claim then waits at most for the statement in flight and its own. Raise it
        /// when round trips to a distant database dominate a claim's wait.
        public var statementsInFlight: Int = 1
        /// Longest wait for a new connection.
        public var connectTimeout: Duration = .seconds(2)
        /// Longest wait for one claim, connection lease included; then the launch gets 503.
        public var claimTimeout: Duration = .seconds(2)
        /// How often expired rows are deleted (and the size gauge updated).
        public var sweepInterval: Duration = .seconds(30)
        /// Whether a database running with `synchronous_commit = off` is accepted. Off by
        /// default: such a database acknowledges a claim before it is on disk, so a crash
        /// or an immediate shutdown can lose claims it already confirmed, and a launch
        /// accepted before could then be accepted again. The store checks the setting of
        /// its own connections before its first claim and, unless this allows it, refuses
        /// every claim (503, not ready) and logs why. For development clusters only.
        public var allowsAsynchronousCommit = false

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
    /// Whether this store has seen the table exist and the durability it needs. Invariant:
    /// only ever goes from `false` to `true`.
    private let schemaReady = Atomic<Bool>(false)
    /// Whether the refusal of an asynchronous-commit database was logged (once per store).
    private let refusalLogged = Atomic<Bool>(false)
    /// Whether a readiness probe is in flight (at most one at a time).
    private let probing = Atomic<Bool>(false)

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
                // A statement that fails or misses its claims' deadline closes its connection
                // (the pool replaces it), and is never waited for after that.
                await self.batcher.run(
                    lanes: { use in try await self.client.withConnection { connection in await use(connection) } },
                    isOpen: { connection in !connection.isClosed },
                    close: { connection in Self.close(connection) },
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
        // The batcher holds the claim's deadline (no timer task per claim).
        do {
            return try await batcher.claim(id, expiresAt: Int64(clamping: deadline))
        } catch {
            throw Self.storeError(error)
        }
    }

    /// The same claim, answered through a callback: a launch exchanged on its connection's
    /// event loop waits for its batch without a task (``CallbackReplayStore``).
    public func claim(_ id: ReplayID, until deadline: UInt64, now: UInt64, completion: @escaping @Sendable (Result<Bool, any Error>) -> Void) {
        batcher.claim(id, expiresAt: Int64(clamping: deadline)) { result in
            completion(result.mapError(Self.storeError))
        }
    }

    /// What a claim's failure is to its caller: every failure, the caller's cancellation
    /// included, is `unavailable` (as from the SQLite store), with the type of what failed.
    private static func storeError(_ error: any Error) -> any Error {
        if let error = error as? ReplayStoreError { return error }
        return ReplayStoreError(.unavailable, "PostgreSQL failed: \(String(describing: type(of: error)))")
    }

    /// Whether claims can be expected to succeed, for a load balancer's readiness check:
    /// `false` once the store has stopped, and while the claim path is failing (the latest
    /// statement failed or missed its deadline, or no connection could be opened). While
    /// not ready, each call sends one probe claim (a random id, swept at the next sweep)
    /// through the same path, at most one at a time, so the store turns ready again as soon
    /// as claims succeed, even with no launches coming.
    public func readiness() async -> Bool {
        if batcher.isReady { return true }
        guard probing.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return false }
        defer { probing.store(false, ordering: .releasing) }
        let probe = ReplayID(high: .random(in: .min ... .max), low: .random(in: .min ... .max))
        return (try? await batcher.claim(probe, expiresAt: 1)) == true
    }

    /// Records one batch of claims in one statement and returns the ids it recorded first
    /// (`RETURNING` yields only rows actually inserted; an id already present is skipped).
    /// Its deadline is the batcher's: once every claim in the batch has expired, the batcher
    /// cancels this task, which then closes the connection and returns at once, never
    /// waiting for the query (see ``waitAbandoningOnCancel(timeout:abandon:_:)``). The
    /// database refuses the batch once its earliest deadline has passed (the statement
    /// then throws `unavailable`), so claims answered 503 are not recorded later. The
    /// batch's releases (rows earlier statements in doubt may have recorded for nobody) are
    /// deleted first, so a retry in this very batch is granted.
    /// - Parameters:
    ///   - batch: The claims, unique and ascending.
    ///   - connection: The statement slot's connection (leased by the batcher's lane).
    func insert(_ batch: ClaimBatch, on connection: PostgresConnection) async throws -> Set<ReplayID> {
        try await waitAbandoningOnCancel(abandon: { Self.close(connection) }) {
            try await self.prepare(connection)
            if !batch.releases.isEmpty {
                for try await _ in try await connection.execute(ReleaseClaimsStatement(batch.releases), logger: self.logger) {}
            }
            let statement = InsertClaimsStatement(batch)
            var recorded = Set<ReplayID>()
            for try await row in try await connection.execute(statement, logger: self.logger) {
                switch row {
                case .recorded(let id): if let id { recorded.insert(id) }
                case .pastDeadline: throw ReplayStoreError(.unavailable, "the claims reached PostgreSQL after their deadline")
                }
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
        try await onConnection(timeout: configuration.claimTimeout * 5) { connection in
            try await self.prepare(connection)
            let cutoff = Int64(clamping: now)
            let deleted = try await self.count("DELETE FROM webapp_launch_claims WHERE expires_at <= \(cutoff) RETURNING 1", on: connection)
            var total: Int64 = 0
            let rows = try await connection.query("SELECT COUNT(*)::BIGINT FROM webapp_launch_claims", logger: self.logger)
            for try await value in rows.decode(Int64.self) { total = value }
            self.size.record(total)
            return deleted
        }
    }

    /// Runs a statement and counts the rows it returns.
    private func count(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> Int {
        var rows = 0
        for try await _ in try await connection.query(query, logger: logger) { rows += 1 }
        return rows
    }

    /// Runs `body` on one pooled connection, the lease included, within `timeout`: on
    /// timeout or cancellation the connection (if leased) is closed and the wait ends at
    /// once, never waiting for the query (see ``waitAbandoningOnCancel(timeout:abandon:_:)``).
    /// Any failure is ``ReplayStoreError/Code/unavailable``, as from the SQLite store.
    private func onConnection<Value: Sendable>(
        timeout: Duration,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        let leased = Mutex<PostgresConnection?>(nil)
        do {
            return try await waitAbandoningOnCancel(timeout: timeout, abandon: { leased.withLock { $0 }.map(Self.close) }) {
                try await self.client.withConnection { connection in
                    leased.withLock { $0 = connection }
                    if Task.isCancelled { Self.close(connection) }  // abandoned while leasing
                    return try await body(connection)
                }
            }
        } catch let error as ReplayStoreError {
            throw error
        } catch {
            throw ReplayStoreError(.unavailable, "PostgreSQL failed: \(String(describing: type(of: error)))")
        }
    }

    /// Closes a connection without waiting (the pool replaces it); a query in flight on it
    /// fails, unless the driver lost it, and then nothing waits for it.
    private static func close(_ connection: PostgresConnection) {
        let closed: EventLoopFuture<Void> = connection.close()
        closed.whenComplete { _ in }
    }

    /// The first time this store needs it, on the connection at hand (a statement slot may
    /// hold the pool's only one): checks that the database commits durably (unless
    /// ``Configuration/allowsAsynchronousCommit``) and creates the table. Concurrent first
    /// claims may collide inside PostgreSQL's catalog (two `CREATE TABLE IF NOT EXISTS` at
    /// once); one retry absorbs that, within the claim's deadline.
    private func prepare(_ connection: PostgresConnection) async throws {
        guard !schemaReady.load(ordering: .acquiring) else { return }
        try await checkDurability(on: connection)
        do {
            try await createSchema(on: connection)
        } catch {
            try await Task.sleep(for: .milliseconds(50))
            try await createSchema(on: connection)
        }
        schemaReady.store(true, ordering: .releasing)
    }

    /// Refuses a database whose commits are acknowledged before they are durable
    /// (`synchronous_commit = off`, as this connection sees it: the setting may differ by
    /// role or database), unless the configuration allows it.
    private func checkDurability(on connection: PostgresConnection) async throws {
        guard !configuration.allowsAsynchronousCommit else { return }
        var setting = ""
        for try await value in try await connection.query("SHOW synchronous_commit", logger: logger).decode(String.self) { setting = value }
        guard setting.lowercased() != "off" else {
            if !refusalLogged.exchange(true, ordering: .relaxed) {
                logger.error(
                    "replay_store.asynchronous_commit_refused",
                    metadata: ["store": "postgres", "synchronous_commit": "off"]
                )
            }
            throw ReplayStoreError(
                .unavailable,
                "PostgreSQL runs with synchronous_commit=off: a crash could forget claims it confirmed; set it on, or allow it for development"
            )
        }
    }

    /// Creates the table and its index if missing, and adds the `attempt` column to a table
    /// an earlier version created (only when missing: the `ALTER` takes the table's strongest
    /// lock, which a fleet's claims would queue behind). Rows from before carry no attempt
    /// and are never released.
    private func createSchema(on connection: PostgresConnection) async throws {
        _ = try await count("CREATE TABLE IF NOT EXISTS webapp_launch_claims (replay_id BYTEA PRIMARY KEY, expires_at BIGINT NOT NULL, attempt BIGINT)", on: connection)
        _ = try await count("CREATE INDEX IF NOT EXISTS webapp_launch_claims_expiry ON webapp_launch_claims (expires_at)", on: connection)
        let hasAttempt = try await count(
            "SELECT 1 FROM pg_attribute WHERE attrelid = 'webapp_launch_claims'::regclass AND attname = 'attempt' AND NOT attisdropped",
            on: connection
        )
        if hasAttempt == 0 {
            _ = try await count("ALTER TABLE webapp_launch_claims ADD COLUMN IF NOT EXISTS attempt BIGINT", on: connection)
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
