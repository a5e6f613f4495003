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
/// - A slot holds a lane (for the store, a pooled connection) while claims keep coming: it
///   opens one for its first batch and sends each following batch on it. When it finds the
///   queue empty it waits on its lane, and the next claim wakes it; it leaves the lane once
///   it has waited a full ``watchInterval`` (the watcher retires it), when a statement
///   failed (its connection may be broken: the next batch opens another), when the lane
///   was closed while held (its batch goes out on a new one), or on ``close()``. Under load
///   that is one lease for thousands of statements instead of a lease, a release and the
///   pool's idle timers for every one. A slot waits rather than leaving at once because
///   clients that wait for their answers before sending more leave the queue empty between
///   statements.
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
        /// Slots waiting on their lanes for a claim, by slot number; they count in `inFlight`.
        var idle: [UInt64: Idle] = [:]
        var nextSlotNumber: UInt64 = 0
        var closed = false
    }

    /// A slot waiting on its lane: since when, and how to wake it (`true`: a claim is
    /// queued; `false`: leave the lane).
    private struct Idle {
        let since: C.Instant
        let wake: CheckedContinuation<Bool, Never>
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
                let queued = state.withLock { state -> Queued in
                    guard !state.closed else { return .refused }
                    state.queue.append(Claim(id: id, expiresAt: expiresAt, waiter: waiter, deadline: deadline))
                    // A slot waiting on its lane takes it; else a free slot is started; with
                    // every slot busy, a statement that finishes takes this claim.
                    if let (slot, idle) = state.idle.first {
                        state.idle[slot] = nil
                        return .wake(idle.wake)
                    }
                    return state.inFlight < maximumInFlight ? .ring : .wait
                }
                switch queued {
                case .wake(let slot): slot.resume(returning: true)
                case .ring: ring.yield()
                case .wait: break
                case .refused: waiter.finish(.failure(ReplayStoreError(.unavailable, "the PostgreSQL replay store has stopped")))
                }
            }
        } onCancel: {
            waiter.finish(.failure(CancellationError()))
        }
    }

    /// What a new claim sets going.
    private enum Queued {
        /// A slot waiting on its lane, to wake.
        case wake(CheckedContinuation<Bool, Never>)
        /// A slot is free: the dispatcher starts one.
        case ring
        /// Every slot is busy: the first statement to end takes the claim.
        case wait
        /// The batcher has stopped.
        case refused
    }

    /// The batch a slot has taken, with the number the watcher knows it by while it runs.
    typealias Taken = (number: UInt64, claims: [Claim])

    /// Sends batches until ``close()``, each slot on a lane of its own.
    ///
    /// A slot's task, once its statement is answered, takes the next batch itself while
    /// claims are queued, on the same lane: under load the slots stay busy without a round
    /// trip through the dispatcher (which only starts a slot when one is free) and without a
    /// new lane per statement.
    /// - Parameters:
    ///   - openLane: Opens a lane and lends it to `use` until `use` returns; it throws only
    ///     when it could not open one (the batch in hand then fails, fail closed).
    ///   - isOpen: Whether a lane held since its last statement is still open (a connection
    ///     the database closed meanwhile is left, and its batch goes out on a new one: a
    ///     statement written to a closed connection might never be answered).
    ///   - send: Runs one statement on a lane; it throws when the statement failed (or was
    ///     cancelled by the watcher after every claim in it had expired), and the slot then
    ///     leaves that lane.
    func run<Lane: Sendable>(
        lanes openLane: @escaping @Sendable (_ use: (Lane) async -> Void) async throws -> Void,
        isOpen: @escaping @Sendable (Lane) -> Bool,
        send: @escaping @Sendable (ClaimBatch, Lane) async throws -> Set<ReplayID>
    ) async {
        await withDiscardingTaskGroup { watching in
            watching.addTask { await self.watchDeadlines() }
            await withDiscardingTaskGroup { group in
                for await _ in doorbell {
                    while let first = nextBatch(finished: nil) {
                        group.addTask { await self.serve(from: first, openLane: openLane, isOpen: isOpen, send: send) }
                    }
                }
            }
            // Closed, and every statement answered: nothing is left to watch.
            watching.cancelAll()
        }
    }

    /// One slot's work, from the batch it was started with until it leaves: each pass opens
    /// a lane and sends batch after batch on it, waiting on it while the queue is empty; a
    /// failed statement ends the pass (the lane may be broken) and the next batch, if any,
    /// starts another.
    private func serve<Lane: Sendable>(
        from first: Taken,
        openLane: @Sendable (_ use: (Lane) async -> Void) async throws -> Void,
        isOpen: @escaping @Sendable (Lane) -> Bool,
        send: @escaping @Sendable (ClaimBatch, Lane) async throws -> Set<ReplayID>
    ) async {
        let slot = state.withLock { state in
            defer { state.nextSlotNumber += 1 }
            return state.nextSlotNumber
        }
        var next: Taken? = first
        while let start = next {
            var inHand: Taken? = start  // taken, not yet sent
            next = nil
            do {
                try await openLane { lane in
                    var fresh = true
                    while let current = inHand {
                        guard fresh || isOpen(lane) else {
                            next = current  // closed while held: the batch goes out on a new lane
                            return
                        }
                        fresh = false
                        inHand = nil
                        let sent = await answer(current.number, current.claims) { try await send($0, lane) }
                        guard sent else {
                            next = nextBatch(finished: current.number)  // on a new lane
                            return
                        }
                        inHand = await batchOnLane(slot: slot, finished: current.number)
                    }
                }
            } catch {
                // No lane: the batch in hand fails (fail closed); the next one tries again.
                if let current = inHand {
                    for claim in current.claims { claim.waiter.finish(.failure(error)) }
                    next = nextBatch(finished: current.number)
                }
            }
        }
    }

    /// Until cancelled (by ``run(lanes:isOpen:send:)``, once closed and every statement
    /// answered): every ``watchInterval``, answers the claims past their deadline
    /// `unavailable`, drops the queued ones among them so they are never sent, cancels a
    /// statement once every claim in it has expired (its connection is then closed), and
    /// sends each slot that has waited on its lane for a whole interval away from it.
    private func watchDeadlines() async {
        while true {
            do { try await clock.sleep(for: watchInterval) } catch { return }
            let now = clock.now
            let (late, abandoned, retired) = state.withLock { state -> ([ClaimWaiter], [Task<Set<ReplayID>, any Error>], [Idle]) in
                var late: [ClaimWaiter] = []
                var abandoned: [Task<Set<ReplayID>, any Error>] = []
                // A slot that has waited on its lane a full interval leaves it.
                let retiring = state.idle.filter { $0.value.since.advanced(by: watchInterval) <= now }
                for slot in retiring.keys { state.idle[slot] = nil }
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
                return (late, abandoned, Array(retiring.values))
            }
            answerLate(late)
            for statement in abandoned { statement.cancel() }
            for slot in retired { slot.wake.resume(returning: false) }
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

    /// How many slots wait on their lanes for a claim (for tests that must know a slot waits
    /// before they queue the claim that wakes it).
    var idleCount: Int { state.withLock { $0.idle.count } }

    /// Stops taking claims, fails every queued one and sends every waiting slot away from its
    /// lane; ``run(lanes:isOpen:send:)`` returns once the batches in flight are answered.
    func close() {
        let (queued, idle) = state.withLock { state in
            state.closed = true
            defer {
                state.queue = []
                state.idle = [:]
            }
            return (state.queue, Array(state.idle.values))
        }
        for claim in queued {
            claim.waiter.finish(.failure(ReplayStoreError(.unavailable, "the PostgreSQL replay store has stopped")))
        }
        for slot in idle { slot.wake.resume(returning: false) }
        ring.finish()
    }

    /// The next batch for a slot whose statement on its lane just ended: at once if claims
    /// are queued, else once the slot, waiting on its lane, is woken by a claim. `nil` when
    /// it should leave its lane (it waited a full watch interval, or the batcher closed or
    /// was cancelled) and the queue is empty; its slot is then free.
    private func batchOnLane(slot: UInt64, finished: UInt64) async -> Taken? {
        if let batch = nextBatch(finished: finished, keepingSlot: true) { return batch }
        while true {
            let woken = await withTaskCancellationHandler {
                await withCheckedContinuation { (wake: CheckedContinuation<Bool, Never>) in
                    let waits = state.withLock { state in
                        // A claim queued since the last look, or a batcher stopping: no wait.
                        guard state.queue.isEmpty, !state.closed, !Task.isCancelled else { return false }
                        state.idle[slot] = Idle(since: clock.now, wake: wake)
                        return true
                    }
                    if !waits { wake.resume(returning: true) }
                }
            } onCancel: {
                state.withLock { $0.idle.removeValue(forKey: slot) }?.wake.resume(returning: false)
            }
            let leaving = !woken || state.withLock { $0.closed } || Task.isCancelled
            if let batch = nextBatch(finished: nil, holdingSlot: true, keepingSlot: !leaving) { return batch }
            if leaving { return nil }
        }
    }

    /// Takes the next batch, with the number the watcher knows it by while it runs: the
    /// queued claims still waiting, oldest first.
    /// - Parameters:
    ///   - finished: The batch whose statement just ended, if any (its slot's task asks).
    ///   - holdingSlot: Whether the caller holds a slot already (a slot's task does); a new
    ///     task (the dispatcher asks, `false`) gets a batch only if a slot is free. By
    ///     default, whether a batch just finished.
    ///   - keepingSlot: Whether a slot's task keeps its slot when the queue is empty (to wait
    ///     on its lane) rather than freeing it.
    private func nextBatch(finished: UInt64?, holdingSlot: Bool? = nil, keepingSlot: Bool = false) -> Taken? {
        let holding = holdingSlot ?? (finished != nil)
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
            guard !state.queue.isEmpty, holding || state.inFlight < maximumInFlight else {
                if holding, !keepingSlot { state.inFlight -= 1 }
                return nil
            }
            if !holding { state.inFlight += 1 }
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
    /// - Returns: `false` when its statement failed, `true` when it was answered or had no
    ///   claim left to send.
    private func answer(_ number: UInt64, _ claims: [Claim], send: @escaping @Sendable (ClaimBatch) async throws -> Set<ReplayID>) async -> Bool {
        var deadlines: [ReplayID: Int64] = [:]
        for claim in claims where !claim.waiter.isFinished {
            deadlines[claim.id] = max(deadlines[claim.id] ?? .min, claim.expiresAt)
        }
        guard !deadlines.isEmpty else { return true }
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
            return false
        }
        // The first claim of a recorded id wins; any other claim of it in this batch is a replay.
        var granted = Set<ReplayID>()
        for claim in claims {
            let wins = recorded.contains(claim.id) && granted.insert(claim.id).inserted
            claim.waiter.finish(.success(wins))
        }
        return true
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
