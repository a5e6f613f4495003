import Synchronization

/// The continuation of one queued claim, resumed exactly once: by its batch, by its caller's
/// cancellation, by its deadline or by the store stopping, whichever comes first.
final class ClaimWaiter: Sendable {
    private enum Slot {
        case waiting
        case attached(CheckedContinuation<Bool, any Error>)
        case finished
        /// Finished before the continuation existed (cancelled first); `attach` resumes it.
        case finishedEarly(Result<Bool, any Error>)
    }

    private let slot = Mutex(Slot.waiting)

    /// Whether an answer has been given (the claim need not be sent any more).
    var isFinished: Bool {
        slot.withLock { slot in
            switch slot {
            case .finished, .finishedEarly: true
            case .waiting, .attached: false
            }
        }
    }

    /// Attaches the continuation; resumes it at once and returns `false` when the claim was
    /// answered (cancelled) before it existed.
    func attach(_ continuation: CheckedContinuation<Bool, any Error>) -> Bool {
        let early: Result<Bool, any Error>? = slot.withLock { slot in
            if case .finishedEarly(let result) = slot {
                slot = .finished
                return result
            }
            slot = .attached(continuation)
            return nil
        }
        guard let early else { return true }
        continuation.resume(with: early)
        return false
    }

    /// Answers the claim, if nothing has yet.
    func finish(_ result: Result<Bool, any Error>) {
        let continuation: CheckedContinuation<Bool, any Error>? = slot.withLock { slot in
            switch slot {
            case .waiting:
                slot = .finishedEarly(result)
                return nil
            case .attached(let continuation):
                slot = .finished
                return continuation
            case .finished, .finishedEarly:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}
