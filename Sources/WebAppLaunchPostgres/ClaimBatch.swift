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
    /// Which statement this is, unique across the stores of a fleet (a random start per
    /// store, then one more per batch): every row it records carries it, so a row it wrote
    /// for claims it granted to nobody can be deleted later, and only that row
    /// (``ClaimRelease``).
    var attempt: Int64 = 0
    /// Rows that earlier statements may have recorded for claims they granted to nobody:
    /// deleted, each only while it still carries its attempt, before this statement records
    /// its own claims (so a retry in this very statement is granted).
    var releases: [ClaimRelease] = []
}
