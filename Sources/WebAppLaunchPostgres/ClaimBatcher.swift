import Synchronization
import WebAppLaunch
import WebAppLaunchMiddleware

/// Gathers the claims that arrive while earlier ones are in flight into one statement, so a
/// burst of launches costs a few commits (and WAL flushes) instead of one each.
///
/// - Claims wait in a queue; everything queued (up to ``maximumBatch``) goes out as one
///   batch as soon as fewer than ``maximumInFlight`` batches are running: a dispatcher starts
///   a statement when a slot is free, and a statement that ends takes the next batch itself.
///   Under light load a batch holds one claim and nothing waits; under load the batches
///   grow by themselves.
/// - Inside a batch each id is sent once, in ascending order (concurrent batches then lock
///   rows in the same order and cannot deadlock); a second claim of the same id in the same
///   batch is a replay, exactly as if it had come a moment later.
/// - A batch that fails fails every claim in it (fail closed). A claim whose caller is
///   cancelled is answered at once and, if not yet sent, never sent.
/// - Every claim has a deadline, kept here rather than by a timer task per claim: one
///   watcher task answers each claim still unanswered at its deadline with
///   ``ReplayStoreError/Code/unavailable`` (and a queued one is then never sent), whatever
///   its statement is doing, and cancels a statement once every claim in it has expired.
///   Under load that is thousands of timers and task groups a second fewer, and an answer
///   that never depends on a statement returning.
///
/// Deadlines are read from `C` (the continuous clock in the store; a clock the tests move
/// themselves, so their deadlines do not depend on how busy the machine is).
final class ClaimBatcher<C: Clock>: Sendable where C.Duration == Duration {
    /// One queued claim.
    struct Claim: Sendable {
        let id: ReplayID
        let expiresAt: Int64
        let waiter: ClaimWaiter
        /// When the claim is answered `unavailable` if nothing answered it before.
        let deadline: C.Instant
    }

    /// The most claims in one statement.
    let maximumBatch: Int
    /// The most statements in flight at once (at most the pool's connections).
    let maximumInFlight: Int
    /// The longest a claim waits for its answer, queueing and statement included.
    let claimTimeout: Duration
    /// How often the watcher looks for claims past their deadline: a claim is answered at
    /// most this long after it.
    let watchInterval: Duration

    private struct State {
        /// Claims not yet sent, oldest (and so earliest deadline) first.
        var queue: [Claim] = []
        var inFlight = 0
        /// The statements in flight, by batch number (the watcher's view).
        var running: [UInt64: Running] = [:]
        var nextBatchNumber: UInt64 = 0
        var closed = false
    }

    /// A statement in flight: its claims, the task running it (once started) and whether
    /// the watcher has cancelled it.
    private struct Running {
        let claims: [Claim]
        /// The latest deadline of its claims: past it, no one waits for the statement.
        let deadline: C.Instant
        var statement: Task<Set<ReplayID>, any Error>?
        var cancelled = false
    }

    // The queue, the statements running and whether the store has stopped; every change
    // happens in one critical section, so a claim is either queued before `close()` (and
    // then failed by it) or refused, and never left queued with no statement to take it.
    private let state = Mutex(State())
    private let clock: C
    private let doorbell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation

    /// Creates a batcher.
    /// - Parameters:
    ///   - maximumBatch: Claims per statement (at least 1).
    ///   - maximumInFlight: Statements at once (at least 1).
    ///   - claimTimeout: The longest a claim waits for its answer.
    ///   - clock: Where deadlines are read and the watcher sleeps.
    init(maximumBatch: Int = 256, maximumInFlight: Int, claimTimeout: Duration = .seconds(2), clock: C) {
        self.clock = clock
        self.maximumBatch = max(1, maximumBatch)
        self.maximumInFlight = max(1, maximumInFlight)
        self.claimTimeout = claimTimeout
        // A twentieth of the timeout, within 5 to 100 ms: at most 5 % late for the default.
        self.watchInterval = min(max(claimTimeout / 20, .milliseconds(5)), .milliseconds(100))
        (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues a claim and waits for its batch.
    /// - Parameters:
    ///   - id: The launch's replay id.
    ///   - expiresAt: When the row may be swept.
    /// - Returns: `true` when this claim recorded the id first.
    /// - Throws: The batch's error, `CancellationError` when the caller was cancelled, or
    ///   ``ReplayStoreError`` when the store has stopped or the claim's deadline passed.
    func claim(_ id: ReplayID, expiresAt: Int64) async throws -> Bool {
        let waiter = ClaimWaiter()
        let deadline = clock.now.advanced(by: claimTimeout)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard waiter.attach(continuation) else { return }  // cancelled already: answered
                let queued: Bool?  // nil: refused; true: a slot is free, wake the dispatcher
                queued = state.withLock { state in
                    guard !state.closed else { return nil }
                    state.queue.append(Claim(id: id, expiresAt: expiresAt, waiter: waiter, deadline: deadline))
                    // With every slot busy, a statement that finishes takes this claim.
                    return state.inFlight < maximumInFlight
                }
                switch queued {
                case true?: ring.yield()
                case false?: break
                case nil: waiter.finish(.failure(ReplayStoreError(.unavailable, "the PostgreSQL replay store has stopped")))
                }
            }
        } onCancel: {
            waiter.finish(.failure(CancellationError()))
        }
    }

    /// Sends batches until ``close()``: each with `send`, which returns the ids it recorded.
    ///
    /// A batch's task, once its statement is answered, takes the next batch itself while
    /// claims are queued: under load the slots stay busy without a round trip through the
    /// dispatcher, which only starts statements when a slot is free.
    /// - Parameter send: Runs one statement; it throws when the statement failed (or was
    ///   cancelled by the watcher after every claim in it had expired).
    func run(_ send: @escaping @Sendable (ClaimBatch) async throws -> Set<ReplayID>) async {
        await withDiscardingTaskGroup { watching in
            watching.addTask { await self.watchDeadlines() }
            await withDiscardingTaskGroup { group in
                for await _ in doorbell {
                    while let first = nextBatch(finished: nil) {
                        group.addTask {
                            var batch: (number: UInt64, claims: [Claim])? = first
                            while let (number, claims) = batch {
                                await self.answer(number, claims, send: send)
                                batch = self.nextBatch(finished: number)
                            }
                        }
                    }
                }
            }
            // Closed, and every statement answered: nothing is left to watch.
            watching.cancelAll()
        }
    }

    /// Until cancelled (by ``run(_:)``, once closed and every statement answered): every
    /// ``watchInterval``, answers the claims past their deadline `unavailable`, drops the
    /// queued ones among them so they are never sent, and cancels a statement once every
    /// claim in it has expired (its connection is then closed).
    private func watchDeadlines() async {
        while true {
            do { try await clock.sleep(for: watchInterval) } catch { return }
            let now = clock.now
            let (late, abandoned) = state.withLock { state -> ([ClaimWaiter], [Task<Set<ReplayID>, any Error>]) in
                var late: [ClaimWaiter] = []
                var abandoned: [Task<Set<ReplayID>, any Error>] = []
                // The queue is in arrival order, and every claim waits equally long.
                let expired = state.queue.prefix { $0.deadline <= now }.count
                late.append(contentsOf: state.queue.prefix(expired).map(\.waiter))
                state.queue.removeFirst(expired)
                for (number, running) in state.running {
                    for claim in running.claims where claim.deadline <= now { late.append(claim.waiter) }
                    if running.deadline <= now, !running.cancelled, let statement = running.statement {
                        abandoned.append(statement)
                        state.running[number]?.cancelled = true
                    }
                }
                return (late, abandoned)
            }
            answerLate(late)
            for statement in abandoned { statement.cancel() }
        }
    }

    /// Answers claims whose deadline passed `unavailable` (those already answered keep
    /// their answer): the watcher and the batch taker both find them.
    private func answerLate(_ waiters: [ClaimWaiter]) {
        for waiter in waiters where !waiter.isFinished {
            waiter.finish(.failure(ReplayStoreError(.unavailable, "PostgreSQL did not answer within \(claimTimeout)")))
        }
    }

    /// How many claims wait in the queue, not yet in a statement (for tests that must know
    /// a claim is queued before they move the clock).
    var queuedCount: Int { state.withLock { $0.queue.count } }

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

    /// Takes the next batch, with the number the watcher knows it by while it runs: the
    /// queued claims still waiting, oldest first. `finished` is the batch number whose
    /// statement just ended (its task continues with the next batch, or frees its slot);
    /// `nil` asks for a batch for a new task, which needs a free slot.
    private func nextBatch(finished: UInt64?) -> (number: UInt64, claims: [Claim])? {
        let now = clock.now
        var late: [ClaimWaiter] = []
        defer {
            // Past its deadline a claim is never sent, whether or not the watcher saw it yet.
            answerLate(late)
        }
        return state.withLock { state in
            if let finished { state.running[finished] = nil }
            state.queue.removeAll { claim in
                if claim.deadline <= now { late.append(claim.waiter) }
                return claim.deadline <= now || claim.waiter.isFinished
            }
            guard !state.queue.isEmpty, finished != nil || state.inFlight < maximumInFlight else {
                if finished != nil { state.inFlight -= 1 }
                return nil
            }
            if finished == nil { state.inFlight += 1 }
            let count = min(maximumBatch, state.queue.count)
            let claims = Array(state.queue.prefix(count))
            state.queue.removeFirst(count)
            let number = state.nextBatchNumber
            state.nextBatchNumber += 1
            state.running[number] = Running(claims: claims, deadline: claims.map(\.deadline).max()!)
            return (number, claims)
        }
    }

    /// Sends one batch and answers each of its claims.
    private func answer(_ number: UInt64, _ claims: [Claim], send: @escaping @Sendable (ClaimBatch) async throws -> Set<ReplayID>) async {
        var deadlines: [ReplayID: Int64] = [:]
        for claim in claims where !claim.waiter.isFinished {
            deadlines[claim.id] = max(deadlines[claim.id] ?? .min, claim.expiresAt)
        }
        guard !deadlines.isEmpty else { return }
        let ids = deadlines.keys.sorted { ($0.high, $0.low) < ($1.high, $1.low) }
        let batch = ClaimBatch(ids: ids, expiresAt: ids.map { deadlines[$0]! })
        // Its own task, so the watcher can cancel this statement alone; started inside the
        // critical section, so no pass of the watcher can see the statement under way (its
        // claims sent) and not yet cancellable.
        let statement = state.withLock { state in
            let statement = Task { try await send(batch) }
            state.running[number]?.statement = statement
            return statement
        }
        let recorded: Set<ReplayID>
        do {
            recorded = try await withTaskCancellationHandler {
                try await statement.value
            } onCancel: {
                statement.cancel()  // the store is stopping: stop the statement too
            }
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

extension ClaimBatcher where C == ContinuousClock {
    /// Creates a batcher whose deadlines are on the continuous clock, as the store's are.
    convenience init(maximumBatch: Int = 256, maximumInFlight: Int, claimTimeout: Duration = .seconds(2)) {
        self.init(maximumBatch: maximumBatch, maximumInFlight: maximumInFlight, claimTimeout: claimTimeout, clock: ContinuousClock())
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
