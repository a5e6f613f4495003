import NIOCore
import PostgresNIO
import WebAppLaunch

/// One batch of claims as a prepared statement: PostgreSQL parses and plans it once per
/// connection (postgres-nio prepares it on first use), not once per batch as an unnamed
/// statement would, so each batch costs only its bind and execute.
///
/// `RETURNING` yields only the rows actually inserted: an id already present is skipped, so
/// the ids returned are exactly the claims this batch won.
struct InsertClaimsStatement: PostgresPreparedStatement {
    static let name = "webapp_launch_insert_claims_v1"
    static let sql = """
        INSERT INTO webapp_launch_claims (replay_id, expires_at) \
        SELECT * FROM unnest($1::bytea[], $2::bigint[]) \
        ON CONFLICT (replay_id) DO NOTHING RETURNING replay_id
        """
    typealias Row = ReplayID?

    /// The batch's ids, each as its 16 bytes (high then low half, big-endian: the id's bytes
    /// in order), index for index with `expiresAt`.
    let ids: [ByteBuffer]
    let expiresAt: [Int64]

    init(_ batch: ClaimBatch) {
        ids = batch.ids.map { id in
            var buffer = ByteBuffer()
            buffer.writeInteger(id.high)
            buffer.writeInteger(id.low)
            return buffer
        }
        expiresAt = batch.expiresAt
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(ids)
        bindings.append(expiresAt)
        return bindings
    }

    /// The recorded id, or `nil` for a value that is not 16 bytes (never written by this store).
    func decodeRow(_ row: PostgresRow) throws -> Row {
        ReplayID(bytes: try row.decode(ByteBuffer.self).readableBytesView)
    }
}
