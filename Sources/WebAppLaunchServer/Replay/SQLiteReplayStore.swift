import Logging
import NIOCore
import SQLiteNIO
import Synchronization
import WebAppLaunch

/// A replay store in an SQLite file: survives restarts, serves one node.
///
/// Schema (created if missing):
/// ```sql
/// CREATE TABLE claimed_launches (replay_id BLOB PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID;
/// ```
/// A claim is one statement, `INSERT … ON CONFLICT DO NOTHING RETURNING`, so it is atomic;
/// `synchronous=FULL` makes a claim durable before the launch is accepted. Expired rows are
/// deleted every few seconds.
public final class SQLiteReplayStore: ReplayStore {
    private let connection: SQLiteConnection
    private let nextSweep = Mutex<UInt64>(0)
    private static let sweepInterval: UInt64 = 10

    private init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Opens (or creates) the store.
    /// - Parameters:
    ///   - path: The database file.
    ///   - logger: For the SQLite driver's own messages.
    /// - Returns: The store.
    /// - Throws: ``ReplayStoreError/Code/unavailable`` when the file cannot be opened.
    public static func open(path: String, logger: Logger = Logger(label: "webapp-launch.replay.sqlite")) async throws -> SQLiteReplayStore {
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
            return SQLiteReplayStore(connection: connection)
        } catch {
            throw ReplayStoreError(.unavailable, "cannot open the SQLite replay store at \(path)")
        }
    }

    public func claim(_ id: ReplayID, until deadline: UInt64, now: UInt64) async throws -> Bool {
        let sweepDue = nextSweep.withLock { next in
            guard now >= next else { return false }
            next = now + Self.sweepInterval
            return true
        }
        if sweepDue {
            _ = try await connection.query(
                "DELETE FROM claimed_launches WHERE expires_at <= ?1",
                [.integer(Int(clamping: now))]
            )
        }
        let rows = try await connection.query(
            "INSERT INTO claimed_launches (replay_id, expires_at) VALUES (?1, ?2) ON CONFLICT (replay_id) DO NOTHING RETURNING replay_id",
            [.blob(ByteBuffer(bytes: id.bytes)), .integer(Int(clamping: deadline))]
        )
        return rows.count == 1
    }

    public func count() async throws -> Int {
        let rows = try await connection.query("SELECT COUNT(*) AS n FROM claimed_launches")
        return rows.first?.column("n")?.integer ?? 0
    }

    /// Closes the database file.
    public func close() async throws {
        try await connection.close()
    }
}
