import Foundation
import NIOCore
import PostgresNIO
import WebAppLaunch

/// One batch of claims as a prepared statement: PostgreSQL parses and plans it once per
/// connection (postgres-nio prepares it on first use), not once per batch as an unnamed
/// statement would, so each batch costs only its bind and execute.
///
/// `RETURNING` yields only the rows actually inserted: an id already present is skipped, so
/// the ids returned are exactly the claims this batch won.
///
/// The database itself refuses claims that reach it after their deadline: the insert runs
/// only while `clock_timestamp()` is before `$3` (the batch's earliest claim deadline, as
/// seconds since 1970), and otherwise the statement inserts nothing and returns one `NULL`
/// row, read as ``Row/pastDeadline``. By then the batcher has answered those claims
/// `unavailable`, so a 503 does not leave a recorded claim behind (a statement a paused
/// database resumes seconds later records nothing).
///
/// Each row carries the statement's attempt (`$4`), so a row it recorded for claims it
/// granted to nobody can be deleted later, and only that row (``ReleaseClaimsStatement``).
struct InsertClaimsStatement: PostgresPreparedStatement {
    static let name = "webapp_launch_insert_claims_v3"
    static let sql = """
        WITH deadline_check AS (SELECT clock_timestamp() < to_timestamp($3::double precision) AS in_time), \
        inserted AS (\
        INSERT INTO webapp_launch_claims (replay_id, expires_at, attempt) \
        SELECT claim.replay_id, claim.expires_at, $4::bigint \
        FROM unnest($1::bytea[], $2::bigint[]) AS claim(replay_id, expires_at), deadline_check \
        WHERE deadline_check.in_time \
        ON CONFLICT (replay_id) DO NOTHING RETURNING replay_id) \
        SELECT replay_id FROM inserted \
        UNION ALL SELECT NULL::bytea FROM deadline_check WHERE NOT deadline_check.in_time
        """

    /// One returned row.
    enum Row: Sendable, Equatable {
        /// An id this batch recorded (`nil` for a value that is not 16 bytes, never written
        /// by this store).
        case recorded(ReplayID?)
        /// The statement reached the database after its deadline and recorded nothing.
        case pastDeadline
    }

    /// The batch's ids, each as its 16 bytes (high then low half, big-endian: the id's bytes
    /// in order), index for index with `expiresAt`.
    let ids: [ByteBuffer]
    let expiresAt: [Int64]
    /// Seconds since 1970 after which the database records nothing.
    let notAfter: Double
    /// The statement's attempt, written into every row it records.
    let attempt: Int64

    /// - Parameters:
    ///   - batch: The claims.
    ///   - now: The current wall-clock time (the database compares its own clock with it:
    ///     the instances' and the database's clocks must agree, as NTP keeps them).
    init(_ batch: ClaimBatch, now: Date = Date()) {
        ids = batch.ids.map(Self.bytes(of:))
        expiresAt = batch.expiresAt
        attempt = batch.attempt
        if let timeLeft = batch.timeLeft {
            let (seconds, attoseconds) = timeLeft.components
            notAfter = now.timeIntervalSince1970 + Double(seconds) + Double(attoseconds) / 1e18
        } else {
            notAfter = .infinity
        }
    }

    /// An id as the table holds it: its 16 bytes, high then low half, big-endian.
    static func bytes(of id: ReplayID) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(id.high)
        buffer.writeInteger(id.low)
        return buffer
    }

    /// An id the table returned: its 16 bytes read as ``bytes(of:)`` writes them; `nil` for
    /// a value of any other length (never written by this store).
    ///
    /// Two integer reads, not `ReplayID(bytes:)`: that initialiser is generic over any
    /// collection and, called from this module, ran unspecialised (about 3 % of the server's
    /// CPU with this store, for every id a batch recorded).
    static func id(from buffer: ByteBuffer) -> ReplayID? {
        guard buffer.readableBytes == 16,
              let high = buffer.getInteger(at: buffer.readerIndex, as: UInt64.self),
              let low = buffer.getInteger(at: buffer.readerIndex + 8, as: UInt64.self)
        else { return nil }
        return ReplayID(high: high, low: low)
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(ids)
        bindings.append(expiresAt)
        bindings.append(notAfter)
        bindings.append(attempt)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        guard let bytes = try row.decode(ByteBuffer?.self) else { return .pastDeadline }
        return .recorded(Self.id(from: bytes))
    }
}
