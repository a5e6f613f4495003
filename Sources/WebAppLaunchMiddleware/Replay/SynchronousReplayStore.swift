import WebAppLaunch

/// A replay store whose claim never waits: it answers from memory under a lock.
///
/// Such a store lets a launch be exchanged on the connection's event loop, without a Swift
/// task per request (``LaunchFastPath``). A store that waits on I/O (SQLite, PostgreSQL)
/// must not conform: a claim here blocks the event loop for its whole duration.
public protocol SynchronousReplayStore: ReplayStore {
    /// Claims an id at once, with ``ReplayStore/claim(_:until:now:)``'s meaning.
    /// - Parameters:
    ///   - id: The launch's replay id.
    ///   - deadline: Until when the id must be remembered (Unix seconds).
    ///   - now: The current time (Unix seconds).
    /// - Returns: `true` when this claim is the first; `false` when the id was used.
    /// - Throws: ``ReplayStoreError`` when the store cannot answer (full): fail closed.
    func claimSynchronously(_ id: ReplayID, until deadline: UInt64, now: UInt64) throws -> Bool
}
