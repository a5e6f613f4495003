import WebAppLaunch

/// A replay store whose claim waits (on PostgreSQL) but can answer through a callback, so
/// its caller need not wait in a Swift task.
///
/// Such a store lets a launch be exchanged on the connection's event loop and answered when
/// its claim is (``LaunchFastPath``): no task, router or middleware chain per launch, and
/// the event loop never blocked, the claim's I/O happening elsewhere. The claim is the same
/// one ``ReplayStore/claim(_:until:now:)`` makes: same batches, deadline and errors.
public protocol CallbackReplayStore: ReplayStore {
    /// Claims an id with ``ReplayStore/claim(_:until:now:)``'s meaning, answering through
    /// `completion`.
    /// - Parameters:
    ///   - id: The launch's replay id.
    ///   - deadline: Until when the id must be remembered (Unix seconds).
    ///   - now: The current time (Unix seconds).
    ///   - completion: Called exactly once, on any thread (at once when the store can
    ///     answer without I/O, e.g. after it stopped), within the store's claim timeout:
    ///     `true` when this claim is the first, `false` when the id was used, or
    ///     ``ReplayStoreError`` when the store cannot answer (fail closed).
    func claim(_ id: ReplayID, until deadline: UInt64, now: UInt64, completion: @escaping @Sendable (Result<Bool, any Error>) -> Void)
}
