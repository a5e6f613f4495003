import NIOCore
import PostgresNIO
import WebAppLaunch

/// Deletes the rows that statements in doubt may have recorded for claims they granted to
/// nobody (``ClaimRelease``): a row goes only while it still carries the attempt of the
/// statement that wrote it, so a row any other statement wrote (a launch granted since, or
/// a replay's) is never touched. Deleting nothing is the common case and costs an index
/// lookup per release, with no write and no WAL flush.
struct ReleaseClaimsStatement: PostgresPreparedStatement {
    static let name = "webapp_launch_release_claims_v1"
    static let sql = """
        DELETE FROM webapp_launch_claims AS claim \
        USING unnest($1::bytea[], $2::bigint[]) AS released(replay_id, attempt) \
        WHERE claim.replay_id = released.replay_id AND claim.attempt = released.attempt \
        RETURNING claim.replay_id
        """

    typealias Row = ByteBuffer

    /// The ids, as ``InsertClaimsStatement`` writes them, index for index with `attempts`.
    let ids: [ByteBuffer]
    let attempts: [Int64]

    init(_ releases: [ClaimRelease]) {
        ids = releases.map { InsertClaimsStatement.bytes(of: $0.id) }
        attempts = releases.map(\.attempt)
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(ids)
        bindings.append(attempts)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> ByteBuffer { try row.decode(ByteBuffer.self) }
}
