import WebAppLaunch

/// What one claims statement sends: unique replay ids in ascending order, each with the
/// time its row may be swept. Ascending, so concurrent statements lock rows in one order and
/// cannot deadlock; unique, because `ON CONFLICT` cannot see a row the same statement inserts.
struct ClaimBatch: Sendable {
    /// The ids, unique and ascending.
    let ids: [ReplayID]
    /// Each id's retention deadline (seconds since 1970), index for index.
    let expiresAt: [Int64]
    /// How long, from when the statement is handed to the lane, until the earliest deadline
    /// of its claims: the database must refuse to record them after that, because by then
    /// their callers have been answered `unavailable` (`nil`: no limit, for tests).
    var timeLeft: Duration? = nil
}
