import Synchronization

/// How many upstream requests each session has in flight, bounded: the decisions, as a value
/// with no locks, tasks or clocks (tested synchronously).
///
/// The gate's upstream connections are shared by every user. Without a bound per session, one
/// signed-in user holding many slow downloads takes them all and every other user waits
/// until 504. With it, that user's extra requests get 429 at once and the rest go on.
struct SessionSlotsState: Sendable {
    let limitPerSession: Int
    private(set) var inFlight: [String: Int] = [:]

    init(limitPerSession: Int) { self.limitPerSession = max(1, limitPerSession) }

    /// A request of `session` wants to go upstream.
    /// - Returns: Whether it may (then ``release(_:)`` once its response is done).
    mutating func acquire(_ session: String) -> Bool {
        let current = inFlight[session, default: 0]
        guard current < limitPerSession else { return false }
        inFlight[session] = current + 1
        return true
    }

    /// A request of `session` is done with the upstream.
    mutating func release(_ session: String) {
        guard let current = inFlight[session] else { return }
        inFlight[session] = current > 1 ? current - 1 : nil
    }
}

/// The runner of ``SessionSlotsState`` shared by every request of a gate.
final class SessionUpstreamSlots: Sendable {
    // Invariant: the state is only read or changed under this mutex.
    private let state: Mutex<SessionSlotsState>

    init(limitPerSession: Int) { state = Mutex(SessionSlotsState(limitPerSession: limitPerSession)) }

    /// A lease for one request of `session`, or `nil` when the session is at its bound.
    func lease(for session: String) -> Lease? {
        state.withLock { $0.acquire(session) } ? Lease(slots: self, session: session) : nil
    }

    fileprivate func release(_ session: String) { state.withLock { $0.release(session) } }

    /// How many requests `session` has in flight (for tests).
    func inFlight(_ session: String) -> Int { state.withLock { $0.inFlight[session, default: 0] } }

    /// One request's slot, given back exactly once: when the lease is dropped (its response
    /// finished, failed, or was never written because the client went away).
    final class Lease: Sendable {
        let slots: SessionUpstreamSlots
        let session: String

        fileprivate init(slots: SessionUpstreamSlots, session: String) {
            self.slots = slots
            self.session = session
        }

        deinit { slots.release(session) }
    }
}
