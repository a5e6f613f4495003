import Synchronization
import WebAppLaunch
import WebAppLaunchMiddleware

/// Gathers the claims that arrive while earlier ones are in flight into one statement, so a
/// burst of launches costs a few commits (and WAL flushes) instead of one each.
///
/// The runner of ``ClaimBatcherStateMachine``, which makes every decision (batching, the
/// slots holding lanes while claims keep coming, deadlines, abandoning, closing; read its
/// rules there). This class only holds the state behind one lock, feeds it events (a claim,
/// a cancellation, a lane opened or refused, a statement answered, the watcher's tick) and
/// performs the actions it returns outside the lock: answering claims, opening, giving back
/// and abandoning lanes, starting statements.
///
/// No task here ever waits for the database: lanes are opened and statements sent in tasks
/// of their own that report back by event, and an abandoned one is cancelled and left
/// behind. So a claim is answered by its deadline, a slot is never lost, and ``run(lanes:isOpen:close:send:)``
/// returns within a claim timeout of ``close()`` (at once when cancelled), whatever the
/// database or its driver does.
///
/// Deadlines are read from `C` (the continuous clock in the store; a clock the tests move
/// themselves, so their deadlines do not depend on how busy the machine is).
final class ClaimBatcher<C: Clock>: Sendable where C.Duration == Duration {
    typealias Machine = ClaimBatcherStateMachine<C.Instant, ClaimWaiter, HeldLane>

    /// The most claims in one statement.
    let maximumBatch: Int
    /// The most statements in flight at once (at most the pool's connections).
    let maximumInFlight: Int
    /// The longest a claim waits for its answer, queueing and statement included.
    let claimTimeout: Duration
    /// How often the watcher looks for claims past their deadline (a claim is answered at
    /// most this long after it), and how long a slot waits on its lane for a claim.
    let watchInterval: Duration

    // Every decision; each event is applied in one critical section and its actions are
    // performed after it, so no continuation is resumed and no task started under this lock
    // (but for a claim's own continuation, attached inside it so a cancellation cannot slip
    // between attaching and queueing).
    private let machine: Mutex<Machine>
    private let clock: C
    private let claimNumbers = Atomic<UInt64>(0)
    /// Opens a lane for a slot, once ``run(lanes:isOpen:close:send:)`` has started.
    private let opener = Mutex<(@Sendable (UInt64) -> Task<Void, Never>)?>(nil)
    /// The tasks opening lanes, by slot, to cancel when a slot is abandoned while opening.
    private let openings = Mutex<[UInt64: Task<Void, Never>]>([:])
    private let stopped: AsyncStream<Void>
    private let stop: AsyncStream<Void>.Continuation

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
        watchInterval = min(max(claimTimeout / 20, .milliseconds(5)), .milliseconds(100))
        machine = Mutex(Machine(
            maximumBatch: maximumBatch,
            maximumInFlight: maximumInFlight,
            watchInterval: watchInterval,
            // Far longer than a statement abandoned at its deadline stays alive in a database
            // that comes back (a paused one resumes it at once; a restart ends it).
            releaseWatch: max(.seconds(30), claimTimeout * 10),
            attemptSeed: .random(in: .min ... .max)
        ))
        (stopped, stop) = AsyncStream.makeStream(of: Void.self)
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
        let number = claimNumbers.wrappingAdd(1, ordering: .relaxed).oldValue
        let now = clock.now
        let claim = Machine.Claim(number: number, id: id, expiresAt: expiresAt, waiter: waiter, deadline: now.advanced(by: claimTimeout))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let actions = machine.withLock { machine -> Machine.Actions? in
                    // Cancelled already: answered.
                    guard waiter.attach({ continuation.resume(with: $0) }) else { return nil }
                    return machine.claim(claim, now: now)
                }
                if let actions { perform(actions) }
            }
        } onCancel: {
            waiter.finish(.failure(CancellationError()))
            machine.withLock { $0.cancel(claim: number) }
        }
    }

    /// Queues a claim whose answer goes to `completion`, for a caller that does not wait in
    /// a task (a launch exchanged on its connection's event loop): the same queue, batches,
    /// deadline and errors as ``claim(_:expiresAt:)``, without cancellation (the deadline
    /// bounds the wait).
    /// - Parameters:
    ///   - id: The launch's replay id.
    ///   - expiresAt: When the row may be swept.
    ///   - completion: Called exactly once, on any thread: `true` when this claim recorded
    ///     the id first; the batch's error, or ``ReplayStoreError`` when the store has
    ///     stopped or the claim's deadline passed.
    func claim(_ id: ReplayID, expiresAt: Int64, completion: @escaping @Sendable (Result<Bool, any Error>) -> Void) {
        let number = claimNumbers.wrappingAdd(1, ordering: .relaxed).oldValue
        let now = clock.now
        let claim = Machine.Claim(
            number: number, id: id, expiresAt: expiresAt, waiter: ClaimWaiter(completion: completion), deadline: now.advanced(by: claimTimeout)
        )
        perform(machine.withLock { $0.claim(claim, now: now) })
    }

    /// Sends batches until ``close()`` (and the batches then in flight are answered or past
    /// their deadline) or until cancelled (then at once).
    /// - Parameters:
    ///   - openLane: Opens a lane and lends it to `use` until `use` returns; it throws only
    ///     when it could not open one (the batch in hand then fails, fail closed). It runs in
    ///     a task of its own, cancelled if the slot's claims all expire first.
    ///   - isOpen: Whether a lane held since its last statement is still open (a connection
    ///     the database closed meanwhile is left, and its batch goes out on a new one).
    ///   - close: Closes a lane whose statement failed or was abandoned (for the store, the
    ///     connection, so the pool replaces it).
    ///   - send: Runs one statement on a lane; it throws when the statement failed. It runs
    ///     in a task of its own, cancelled when abandoned, and never waited for after that.
    func run<Lane: Sendable>(
        lanes openLane: @escaping @Sendable (_ use: (Lane) async -> Void) async throws -> Void,
        isOpen: @escaping @Sendable (Lane) -> Bool,
        close: @escaping @Sendable (Lane) -> Void = { _ in },
        send: @escaping @Sendable (ClaimBatch, Lane) async throws -> Set<ReplayID>
    ) async {
        opener.withLock { opener in
            opener = { slot in
                Task { await self.openLane(for: slot, openLane, isOpen: isOpen, close: close, send: send) }
            }
        }
        let now = clock.now
        perform(machine.withLock { $0.start(now: now) })
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.watchDeadlines() }
                for await _ in stopped {}
                group.cancelAll()
            }
        } onCancel: {
            perform(machine.withLock { $0.shutDown() })
        }
    }

    /// Whether claims can be expected to succeed (see ``ClaimBatcherStateMachine/isReady``).
    var isReady: Bool { machine.withLock { $0.isReady } }

    /// How many claims wait in the queue, not yet in a statement (for tests that must know
    /// a claim is queued before they move the clock).
    var queuedCount: Int { machine.withLock { $0.queuedCount } }

    /// How many slots wait on their lanes for a claim (for tests that must know a slot waits
    /// before they queue the claim that wakes it).
    var idleCount: Int { machine.withLock { $0.idleCount } }

    /// Stops taking claims, fails every queued one and sends every waiting slot away from its
    /// lane; ``run(lanes:isOpen:close:send:)`` returns once the batches in flight are
    /// answered or past their deadline.
    func close() {
        perform(machine.withLock { $0.close() })
    }

    /// One slot's lane: opened, reported, held until the state machine gives it back.
    private func openLane<Lane: Sendable>(
        for slot: UInt64,
        _ openLane: @Sendable (_ use: (Lane) async -> Void) async throws -> Void,
        isOpen: @escaping @Sendable (Lane) -> Bool,
        close: @escaping @Sendable (Lane) -> Void,
        send: @escaping @Sendable (ClaimBatch, Lane) async throws -> Set<ReplayID>
    ) async {
        do {
            try await openLane { lane in
                let held = HeldLane(slot: slot, isOpen: { isOpen(lane) }, send: { try await send($0, lane) }, close: { close(lane) })
                await withCheckedContinuation { opener in
                    held.park(opener)
                    let now = clock.now
                    perform(machine.withLock { $0.laneOpened(slot: slot, lane: held, now: now) })
                }
            }
        } catch {
            let now = clock.now
            perform(machine.withLock { $0.laneFailed(slot: slot, error: error, now: now) })
        }
        openings.withLock { _ = $0.removeValue(forKey: slot) }
    }

    /// Until cancelled (once the batcher has stopped): ticks the state machine every
    /// ``watchInterval``.
    private func watchDeadlines() async {
        while true {
            do { try await clock.sleep(for: watchInterval) } catch { return }
            let now = clock.now
            perform(machine.withLock { $0.tick(now: now) })
        }
    }

    /// Does what the state machine decided.
    private func perform(_ actions: Machine.Actions) {
        for (waiter, answer) in actions.answers { waiter.finish(result(of: answer)) }
        for lane in actions.releases { lane.release() }
        for lane in actions.abandonedLanes { lane.abandon() }
        for slot in actions.abandonedOpenings { openings.withLock { $0.removeValue(forKey: slot) }?.cancel() }
        for send in actions.sends { start(send) }
        if !actions.opens.isEmpty, let open = opener.withLock({ $0 }) {
            // Started under the openings' own lock, so the task's removal of its entry comes after it.
            for slot in actions.opens { openings.withLock { $0[slot] = open(slot) } }
        }
        if actions.stopped { stop.finish() }
    }

    /// Starts one statement in a task of its own, which reports its answer as an event; a
    /// lane found closed is reported instead.
    private func start(_ send: Machine.Send) {
        let lane = send.lane
        guard lane.isOpen else {
            perform(machine.withLock { $0.laneClosed(slot: send.slot, batch: send.batch) })
            return
        }
        var statement = send.statement
        statement.timeLeft = clock.now.duration(to: send.deadline)
        let task = Task {
            let result: Result<Set<ReplayID>, any Error>
            do { result = .success(try await lane.send(statement)) } catch { result = .failure(error) }
            let now = clock.now
            perform(machine.withLock { $0.statementFinished(slot: send.slot, batch: send.batch, result: result, now: now) })
        }
        lane.hold(task)
    }

    private func result(of answer: Machine.Answer) -> Result<Bool, any Error> {
        switch answer {
        case .granted: .success(true)
        case .replayed: .success(false)
        case .failed(let error): .failure(error)
        case .late: .failure(ReplayStoreError(.unavailable, "PostgreSQL did not answer within \(claimTimeout)"))
        case .stopped: .failure(ReplayStoreError(.unavailable, "the PostgreSQL replay store has stopped"))
        }
    }
}

extension ClaimBatcher where C == ContinuousClock {
    /// Creates a batcher whose deadlines are on the continuous clock, as the store's are.
    convenience init(maximumBatch: Int = 256, maximumInFlight: Int, claimTimeout: Duration = .seconds(2)) {
        self.init(maximumBatch: maximumBatch, maximumInFlight: maximumInFlight, claimTimeout: claimTimeout, clock: ContinuousClock())
    }
}
