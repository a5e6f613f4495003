import Synchronization
import WebAppLaunch
import WebAppLaunchMiddleware

/// Gathers the claims that arrive while earlier ones are in flight into one statement, so a
/// burst of launches costs a few commits (and WAL flushes) instead of one each.
///
/// - Claims wait in a queue; a dispatcher sends everything queued (up to ``maximumBatch``)
///   as one batch as soon as fewer than ``maximumInFlight`` batches are running. Under light
///   load a batch holds one claim and nothing waits; under load the batches grow by themselves.
/// - Inside a batch each id is sent once, in ascending order (concurrent batches then lock
///   rows in the same order and cannot deadlock); a second claim of the same id in the same
///   batch is a replay, exactly as if it had come a moment later.
/// - A batch that fails fails every claim in it (fail closed). A claim whose caller is
///   cancelled (its deadline passed) is answered at once and, if not yet sent, never sent.
final class ClaimBatcher: Sendable {
    /// One queued claim.
    struct Claim: Sendable {
        let id: ReplayID
        let expiresAt: Int64
        let waiter: ClaimWaiter
    }

    /// What a batch sends: unique ids in ascending order with their retention deadlines.
    struct Batch: Sendable {
        let ids: [ReplayID]
        let expiresAt: [Int64]
    }

    /// The most claims in one statement.
    let maximumBatch: Int
    /// The most statements in flight at once (at most the pool's connections).
    let maximumInFlight: Int

    private struct State {
        var queue: [Claim] = []
        var inFlight = 0
        var closed = false
    }

    // The queue, the number of batches running and whether the store has stopped; every
    // change happens in one critical section, so a claim is either queued before `close()`
    // (and then failed by it) or refused.
    private let state = Mutex(State())
    private let doorbell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation

    /// Creates a batcher.
    /// - Parameters:
    ///   - maximumBatch: Claims per statement (at least 1).
    ///   - maximumInFlight: Statements at once (at least 1).
    init(maximumBatch: Int = 256, maximumInFlight: Int) {
        self.maximumBatch = max(1, maximumBatch)
        self.maximumInFlight = max(1, maximumInFlight)
        (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues a claim and waits for its batch.
    /// - Parameters:
    ///   - id: The launch's replay id.
    ///   - expiresAt: When the row may be swept.
    /// - Returns: `true` when this claim recorded the id first.
    /// - Throws: The batch's error, `CancellationError` when the caller was cancelled, or
    ///   ``ReplayStoreError`` when the store has stopped.
    func claim(_ id: ReplayID, expiresAt: Int64) async throws -> Bool {
        let waiter = ClaimWaiter()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard waiter.attach(continuation) else { return }  // cancelled already: answered
                let queued = state.withLock { state in
                    guard !state.closed else { return false }
                    state.queue.append(Claim(id: id, expiresAt: expiresAt, waiter: waiter))
                    return true
                }
                if queued {
                    ring.yield()
                } else {
                    waiter.finish(.failure(ReplayStoreError(.unavailable, "the PostgreSQL replay store has stopped")))
                }
            }
        } onCancel: {
            waiter.finish(.failure(CancellationError()))
        }
    }

    /// Sends batches until ``close()``: each with `send`, which returns the ids it recorded.
    /// - Parameter send: Runs one statement; it throws when the statement failed.
    func run(_ send: @escaping @Sendable (Batch) async throws -> Set<ReplayID>) async {
        await withDiscardingTaskGroup { group in
            for await _ in doorbell {
                while let claims = nextBatch() {
                    group.addTask {
                        await self.answer(claims, send: send)
                        self.state.withLock { $0.inFlight -= 1 }
                        self.ring.yield()  // a slot is free: send what queued meanwhile
                    }
                }
            }
        }
    }

    /// Stops taking claims and fails every queued one; ``run(_:)`` returns once the batches
    /// in flight are answered.
    func close() {
        let queued = state.withLock { state in
            state.closed = true
            defer { state.queue = [] }
            return state.queue
        }
        for claim in queued {
            claim.waiter.finish(.failure(ReplayStoreError(.unavailable, "the PostgreSQL replay store has stopped")))
        }
        ring.finish()
    }

    /// Takes the next batch if a slot is free: the queued claims still waiting, oldest first.
    private func nextBatch() -> [Claim]? {
        state.withLock { state in
            state.queue.removeAll { $0.waiter.isFinished }
            guard !state.queue.isEmpty, state.inFlight < maximumInFlight else { return nil }
            let count = min(maximumBatch, state.queue.count)
            let claims = Array(state.queue.prefix(count))
            state.queue.removeFirst(count)
            state.inFlight += 1
            return claims
        }
    }

    /// Sends one batch and answers each of its claims.
    private func answer(_ claims: [Claim], send: @Sendable (Batch) async throws -> Set<ReplayID>) async {
        var deadlines: [ReplayID: Int64] = [:]
        for claim in claims where !claim.waiter.isFinished {
            deadlines[claim.id] = max(deadlines[claim.id] ?? .min, claim.expiresAt)
        }
        guard !deadlines.isEmpty else { return }
        let ids = deadlines.keys.sorted { ($0.high, $0.low) < ($1.high, $1.low) }
        let recorded: Set<ReplayID>
        do {
            recorded = try await send(Batch(ids: ids, expiresAt: ids.map { deadlines[$0]! }))
        } catch {
            for claim in claims { claim.waiter.finish(.failure(error)) }
            return
        }
        // The first claim of a recorded id wins; any other claim of it in this batch is a replay.
        var granted = Set<ReplayID>()
        for claim in claims {
            let wins = recorded.contains(claim.id) && granted.insert(claim.id).inserted
            claim.waiter.finish(.success(wins))
        }
    }
}

/// The continuation of one queued claim, resumed exactly once: by its batch, by its caller's
/// cancellation, or by the store stopping, whichever comes first.
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
