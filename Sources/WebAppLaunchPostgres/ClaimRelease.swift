import WebAppLaunch

/// A claim row that one statement may have recorded for callers who were never granted it,
/// to be deleted so that their retry is granted: "a launch answered 503 claims nothing".
///
/// A statement is in doubt when its callers were answered before the database answered it:
/// it failed (the connection broke, perhaps after the commit), it was abandoned at its
/// claims' deadline (the database may still commit it, as a paused one does when it
/// resumes), or it answered after some of its callers had been answered `late` or had gone.
/// Such a statement may have recorded rows no launch was accepted for, and those rows would
/// refuse the user's retry as a replay. Each row carries the statement that wrote it
/// (``ClaimBatch/attempt``), so deleting `(id, attempt)` removes only a row that this
/// statement wrote and granted to nobody: a row another statement wrote, granted or not,
/// never matches.
struct ClaimRelease: Sendable, Hashable {
    /// The replay id the statement may have recorded.
    let id: ReplayID
    /// The statement that may have recorded it (its ``ClaimBatch/attempt``).
    let attempt: Int64
}
