import Synchronization

/// Whoever waits for one queued claim, answered exactly once: by its batch, by its caller's
/// cancellation, by its deadline or by the store stopping, whichever comes first.
///
/// The answer goes to a callback: a task's continuation (``ClaimBatcher/claim(_:expiresAt:)``)
/// or a caller that does not wait in a task (``ClaimBatcher/claim(_:expiresAt:completion:)``,
/// a launch exchanged on its connection's event loop).
final class ClaimWaiter: Sendable {
    /// Where the answer goes.
    typealias Completion = @Sendable (Result<Bool, any Error>) -> Void

    private enum Slot {
        case waiting
        case attached(Completion)
        case finished
        /// Finished before the callback existed (cancelled first); `attach` hands it over.
        case finishedEarly(Result<Bool, any Error>)
    }

    private let slot: Mutex<Slot>

    /// A waiter whose callback is attached later (a continuation exists only inside the
    /// task that waits; it may be cancelled before).
    init() {
        slot = Mutex(.waiting)
    }

    /// A waiter with its callback from the start.
    init(completion: @escaping Completion) {
        slot = Mutex(.attached(completion))
    }

    /// Whether an answer has been given (the claim need not be sent any more).
    var isFinished: Bool {
        slot.withLock { slot in
            switch slot {
            case .finished, .finishedEarly: true
            case .waiting, .attached: false
            }
        }
    }

    /// Attaches the callback; calls it at once and returns `false` when the claim was
    /// answered (cancelled) before it existed.
    func attach(_ completion: @escaping Completion) -> Bool {
        let early: Result<Bool, any Error>? = slot.withLock { slot in
            if case .finishedEarly(let result) = slot {
                slot = .finished
                return result
            }
            slot = .attached(completion)
            return nil
        }
        guard let early else { return true }
        completion(early)
        return false
    }

    /// Answers the claim, if nothing has yet.
    func finish(_ result: Result<Bool, any Error>) {
        let completion: Completion? = slot.withLock { slot in
            switch slot {
            case .waiting:
                slot = .finishedEarly(result)
                return nil
            case .attached(let completion):
                slot = .finished
                return completion
            case .finished, .finishedEarly:
                return nil
            }
        }
        completion?(result)
    }
}
