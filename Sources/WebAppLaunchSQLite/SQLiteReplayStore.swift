import Logging
import Metrics
import NIOCore
import SQLiteNIO
import ServiceLifecycle
import Synchronization
import WebAppLaunch
import WebAppLaunchMiddleware

/// A replay store in an SQLite file: survives restarts, serves one node.
///
/// Schema (created if missing):
/// ```sql
/// CREATE TABLE claimed_launches (replay_id BLOB PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID;
/// ```
/// A claim is one statement, `INSERT … ON CONFLICT DO NOTHING RETURNING`, so it is atomic;
/// `synchronous=FULL` makes a claim durable before the launch is accepted. Expired rows are
/// deleted every few seconds, and the size gauge is recorded then (never per scrape). Any
/// failure is ``ReplayStoreError`` with code `unavailable`, as with every store.
///
/// The store is a `Service`: in an application's service group it closes its file on
/// graceful shutdown (or call ``close()`` yourself when not using one).
public final class SQLiteReplayStore: ReplayStore, Service {
    private let connection: SQLiteConnection
    private let nextSweep = Mutex<UInt64>(0)
    private let closed = Mutex(false)
    private let size: Gauge
    private static let sweepInterval: UInt64 = 10

    private init(connection: SQLiteConnection, size: Gauge) {
        self.connection = connection
        self.size = size
    }

    /// Opens (or creates) the store.
    /// - Parameters:
    ///   - path: The database file.
    ///   - logger: For the SQLite driver's own messages.
    ///   - metricsFactory: Where the size gauge is reported; the global metrics system by default.
    /// - Returns: The store.
    /// - Throws: ``ReplayStoreError/Code/unavailable`` when the file cannot be opened.
    public static func open(
        path: String,
        logger: Logger = Logger(label: "webapp-launch.replay.sqlite"),
        metricsFactory: (any MetricsFactory)? = nil
    ) async throws -> SQLiteReplayStore {
        do {
            let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            _ = try await connection.query("PRAGMA journal_mode=WAL")
            _ = try await connection.query("PRAGMA synchronous=FULL")
            _ = try await connection.query("PRAGMA busy_timeout=2000")
            _ = try await connection.query(
                "CREATE TABLE IF NOT EXISTS claimed_launches (replay_id BLOB PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID"
            )
            _ = try await connection.query(
                "CREATE INDEX IF NOT EXISTS claimed_launches_expiry ON claimed_launches (expires_at)"
            )
            return SQLiteReplayStore(
                connection: connection,
                size: Gauge(label: ReplayStoreMetrics.sizeLabel, factory: metricsFactory ?? MetricsSystem.factory)
            )
        } catch {
            throw ReplayStoreError(.unavailable, "cannot open the SQLite replay store at \(path)")
        }
    }

    public func claim(_ id: ReplayID, until deadline: UInt64, now: UInt64) async throws -> Bool {
        let sweepDue = nextSweep.withLock { next in
            guard now >= next else { return false }
            let (following, overflow) = now.addingReportingOverflow(Self.sweepInterval)
            next = overflow ? .max : following
            return true
        }
        do {
            if sweepDue {
                _ = try await connection.query(
                    "DELETE FROM claimed_launches WHERE expires_at <= ?1",
                    [.integer(Int(clamping: now))]
                )
                size.record(try await count())
            }
            let rows = try await connection.query(
                "INSERT INTO claimed_launches (replay_id, expires_at) VALUES (?1, ?2) ON CONFLICT (replay_id) DO NOTHING RETURNING replay_id",
                [.blob(ByteBuffer(bytes: id.bytes)), .integer(Int(clamping: deadline))]
            )
            return rows.count == 1
        } catch let error as ReplayStoreError {
            throw error
        } catch {
            throw ReplayStoreError(.unavailable, "SQLite failed: \(String(describing: type(of: error)))")
        }
    }

    /// How many ids the file holds, expired ones not yet swept included.
    /// - Returns: The count.
    public func count() async throws -> Int {
        let rows = try await connection.query("SELECT COUNT(*) AS n FROM claimed_launches")
        return rows.first?.column("n")?.integer ?? 0
    }

    /// Waits for graceful shutdown (or cancellation), then closes the database file.
    public func run() async throws {
        try? await gracefulShutdown()
        try await close()
    }

    /// Closes the database file; later calls do nothing.
    public func close() async throws {
        let first = closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        // Through the future: awaiting it does not give up when the calling task is cancelled
        // (a service group that stops on an error cancels its services), so the file is
        // always closed before the store goes away.
        if first {
            let closing: EventLoopFuture<Void> = connection.close()
            try await closing.get()
        }
    }
}
