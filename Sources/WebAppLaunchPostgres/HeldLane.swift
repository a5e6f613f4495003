import Synchronization
import WebAppLaunch

/// A lane (for the store, a pooled connection) while a statement slot holds it, with its
/// type erased so the batcher's state machine can hold any kind: how to check it is open,
/// send a statement on it and close it, and how to give it back.
///
/// Giving it back resumes the lane's opener (which then returns the connection to the pool);
/// it never waits for a statement. Abandoning it also cancels the statement in flight and
/// closes the lane, so the statement fails at once if the driver notices, and is left behind
/// if it does not (a write the driver dropped is never answered): nothing awaits it.
final class HeldLane: Sendable {
    /// The slot it belongs to.
    let slot: UInt64
    private let isOpenLane: @Sendable () -> Bool
    private let sendOnLane: @Sendable (ClaimBatch) async throws -> Set<ReplayID>
    private let closeLane: @Sendable () -> Void

    private struct State {
        /// The opener, waiting until the lane is given back.
        var parked: CheckedContinuation<Void, Never>?
        var statement: Task<Void, Never>?
        var gone = false
    }

    // Invariant: once `gone`, `parked` and `statement` are nil and stay so (a statement
    // handed over afterwards is cancelled at once), so the opener is resumed exactly once.
    private let state = Mutex(State())

    init(
        slot: UInt64,
        isOpen: @escaping @Sendable () -> Bool,
        send: @escaping @Sendable (ClaimBatch) async throws -> Set<ReplayID>,
        close: @escaping @Sendable () -> Void
    ) {
        self.slot = slot
        isOpenLane = isOpen
        sendOnLane = send
        closeLane = close
    }

    /// Whether the lane is still open (a connection the database closed is not).
    var isOpen: Bool { isOpenLane() }

    /// Sends one statement on the lane.
    func send(_ batch: ClaimBatch) async throws -> Set<ReplayID> { try await sendOnLane(batch) }

    /// Keeps the opener waiting until the lane is given back (at once if it already was).
    func park(_ opener: CheckedContinuation<Void, Never>) {
        let gone = state.withLock { state in
            if !state.gone { state.parked = opener }
            return state.gone
        }
        if gone { opener.resume() }
    }

    /// Remembers the statement in flight, so abandoning the lane cancels it.
    func hold(_ statement: Task<Void, Never>) {
        let gone = state.withLock { state in
            if !state.gone { state.statement = statement }
            return state.gone
        }
        if gone { statement.cancel() }
    }

    /// Gives the lane back healthy.
    func release() {
        let (opener, _) = leave()
        opener?.resume()
    }

    /// Cancels the statement in flight without waiting for it, closes the lane and gives it
    /// back.
    func abandon() {
        let (opener, statement) = leave()
        statement?.cancel()
        closeLane()
        opener?.resume()
    }

    private func leave() -> (CheckedContinuation<Void, Never>?, Task<Void, Never>?) {
        state.withLock { state in
            defer {
                state.gone = true
                state.parked = nil
                state.statement = nil
            }
            return (state.parked, state.statement)
        }
    }
}
