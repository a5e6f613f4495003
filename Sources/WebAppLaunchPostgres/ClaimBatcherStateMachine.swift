import WebAppLaunch

/// Every decision of the claim batcher, as a value: each event (a claim, a lane opened, a
/// statement answered, a tick of the watcher, closing) changes the state and returns the
/// ``Actions`` the runner (``ClaimBatcher``) performs outside its lock. Nothing here awaits,
/// locks, reads a clock or starts a task, so every rule is tested synchronously
/// (`ClaimBatcherStateMachineTests`), as postgres-nio tests its pool's state machine.
///
/// The rules:
/// - Claims queue; everything queued (up to `maximumBatch`) goes out as one batch on a
///   slot's lane (for the store, a pooled connection). A slot waiting on its lane takes the
///   batch; else a new slot opens a lane for it while fewer than `maximumInFlight` exist.
/// - A slot keeps its lane while claims keep coming: after a statement it takes the next
///   batch, or waits on the lane (idle) and leaves it once it has waited `watchInterval`.
/// - A failed statement fails its claims (fail closed) and its lane is closed; a lane that
///   could not be opened fails the batch in hand; a lane found closed before a statement is
///   left and the batch opens another.
/// - **Nothing waits for the database past a deadline.** A claim is answered `late` at its
///   deadline whatever its statement does. Once every claim of a slot's batch is answered,
///   the slot is abandoned: its statement is cancelled, its lane closed (or its lane opening
///   cancelled), and the slot is free at once for a replacement; whatever the abandoned
///   work reports later is ignored. So a statement whose connection never answers (or whose
///   write the driver dropped) costs at most one claim timeout, never the slot.
/// - **A claim answered 503 claims nothing.** A statement is in doubt when callers of its
///   batch were answered before it was: it failed (perhaps after its commit), it was
///   abandoned at its deadline (a paused database may commit it when it resumes), or it
///   answered after some of its claims were answered `late` or cancelled. Each row it may
///   have recorded for a claim it granted to nobody becomes a pending ``ClaimRelease``,
///   carried by every statement sent within `releaseWatch` of it: the database deletes the
///   row if that statement wrote it, before recording the new claims, so the user's retry
///   is granted. Carried more than once, because the abandoned statement may commit after
///   the first deletion; at most `maximumPendingReleases` (beyond that the oldest are
///   dropped: their rows stay until swept and their retries are refused, fail closed).
///   A release never removes a granted launch: only the statement it names wrote that row,
///   and that statement granted the id to nobody.
/// - Closing refuses new claims, fails the queued ones and lets idle slots go; batches in
///   flight keep their deadlines (graceful), so the batcher stops within one claim timeout
///   whatever the database does; shutting down (the runner cancelled) abandons them at once.
/// - The claim path is ready unless its latest outcome was a failure (a failed statement,
///   a lane that could not be opened, a statement abandoned at its deadline) or it closed.
struct ClaimBatcherStateMachine<Instant: InstantProtocol, Waiter: Sendable, Lane: Sendable>: Sendable
where Instant.Duration == Duration {
    typealias SlotID = UInt64

    /// One claim, queued or in a batch.
    struct Claim: Sendable {
        /// The runner's number for it (to cancel it).
        let number: UInt64
        let id: ReplayID
        let expiresAt: Int64
        let waiter: Waiter
        /// When it is answered `late` if nothing answered it before.
        let deadline: Instant
    }

    /// How a claim is answered.
    enum Answer: Sendable {
        /// This claim recorded the id first.
        case granted
        /// The id was recorded before (or by an earlier claim in the same batch).
        case replayed
        /// Its statement failed or no lane could be opened (fail closed).
        case failed(any Error)
        /// Its deadline passed first.
        case late
        /// The batcher stopped before it was sent.
        case stopped
    }

    /// A statement to send on a slot's lane.
    struct Send: Sendable {
        let slot: SlotID
        /// The number the answer must carry (``statementFinished(slot:batch:result:now:)``).
        let batch: UInt64
        let statement: ClaimBatch
        let lane: Lane
        /// The earliest deadline of its claims: the database must not record them after it.
        let deadline: Instant
    }

    /// What the runner does after an event, in this order: answer, release and abandon,
    /// then send and open.
    struct Actions: Sendable {
        var answers: [(waiter: Waiter, answer: Answer)] = []
        /// Lanes to give back healthy (an idle slot left, or a late-opened lane).
        var releases: [Lane] = []
        /// Lanes to close and give back: their statement (if any) is cancelled and never
        /// waited for.
        var abandonedLanes: [Lane] = []
        /// Slots whose lane opening is cancelled and never waited for.
        var abandonedOpenings: [SlotID] = []
        var sends: [Send] = []
        /// Slots that need a lane: the runner opens one and reports it.
        var opens: [SlotID] = []
        /// The batcher has closed and holds no slot: its runner may return.
        var stopped = false

        var isEmpty: Bool {
            answers.isEmpty && releases.isEmpty && abandonedLanes.isEmpty && abandonedOpenings.isEmpty
                && sends.isEmpty && opens.isEmpty && !stopped
        }
    }

    private struct Batch: Sendable {
        let number: UInt64
        var claims: [Claim]
        /// Index for index with `claims`: whether it has been answered (late or cancelled).
        var answered: [Bool]
        /// What went out on the lane, once sent (its attempt names the rows it may record).
        var statement: ClaimBatch? = nil
        /// Indices of claims whose callers gave up while the statement was in flight: the
        /// runner answered them; they win nothing, and the statement still runs to its end
        /// (a caller going away is no sign of a failing database).
        var withdrawn: Set<Int> = []

        var isSettled: Bool { !answered.contains(false) }
    }

    private enum Slot: Sendable {
        /// A lane is being opened for the batch in hand.
        case opening(Batch)
        /// A statement is in flight on the lane.
        case sending(Lane, Batch)
        /// Waiting on its lane for a claim, since an instant.
        case idle(Lane, since: Instant)
    }

    let maximumBatch: Int
    let maximumInFlight: Int
    let watchInterval: Duration
    /// How long a release is carried by the statements sent after it: longer than a
    /// statement abandoned at its deadline can plausibly stay alive in the database.
    let releaseWatch: Duration
    /// The most releases carried at once.
    let maximumPendingReleases: Int
    /// The first statement's attempt (random per store, so attempts do not collide across a
    /// fleet); each batch adds its number.
    let attemptSeed: Int64

    /// Claims not yet in a batch, in arrival order.
    private var queue: [Claim] = []
    private var slots: [SlotID: Slot] = [:]
    private var nextSlot: SlotID = 0
    private var nextBatch: UInt64 = 0
    /// Whether the runner has started (before, claims only queue).
    private var running = false
    private var closed = false
    private var stopReported = false
    private var latestOutcomeFailed = false
    /// Rows in-doubt statements may have recorded for claims granted to nobody, each with the
    /// instant until which statements carry it.
    private var releases: [ClaimRelease: Instant] = [:]

    init(
        maximumBatch: Int,
        maximumInFlight: Int,
        watchInterval: Duration,
        releaseWatch: Duration = .seconds(30),
        maximumPendingReleases: Int = 4_096,
        attemptSeed: Int64 = 0
    ) {
        self.maximumBatch = max(1, maximumBatch)
        self.maximumInFlight = max(1, maximumInFlight)
        self.watchInterval = watchInterval
        self.releaseWatch = releaseWatch
        self.maximumPendingReleases = max(0, maximumPendingReleases)
        self.attemptSeed = attemptSeed
    }

    // MARK: Observations

    /// Claims waiting in the queue.
    var queuedCount: Int { queue.count }
    /// Slots waiting on their lanes for a claim.
    var idleCount: Int { slots.values.count { if case .idle = $0 { true } else { false } } }
    /// Slots in existence (opening, sending or idle), at most `maximumInFlight`.
    var slotCount: Int { slots.count }
    /// Whether claims can be expected to succeed: not closed, and the latest statement or
    /// lane opening did not fail or miss its deadline.
    var isReady: Bool { !closed && !latestOutcomeFailed }
    /// The releases the next statement would carry if sent at `now`, in id order.
    func pendingReleases(at now: Instant) -> [ClaimRelease] {
        Self.inIDOrder(releases.filter { $0.value > now }.keys)
    }

    private static func inIDOrder(_ releases: some Sequence<ClaimRelease>) -> [ClaimRelease] {
        releases.sorted { ($0.id.high, $0.id.low, $0.attempt) < ($1.id.high, $1.id.low, $1.attempt) }
    }

    // MARK: Events

    /// The runner started: queued claims go out.
    mutating func start(now: Instant) -> Actions {
        var actions = Actions()
        guard !closed else {
            reportStopIfDone(&actions)
            return actions
        }
        running = true
        dispatch(now: now, &actions)
        return actions
    }

    /// A claim arrives.
    mutating func claim(_ claim: Claim, now: Instant) -> Actions {
        var actions = Actions()
        guard !closed else {
            actions.answers.append((claim.waiter, .stopped))
            return actions
        }
        queue.append(claim)
        dispatch(now: now, &actions)
        return actions
    }

    /// A claim's caller gave up (the runner has answered it): if not yet sent, it never is;
    /// if its statement is in flight, a row it records for this claim alone is released.
    mutating func cancel(claim number: UInt64) {
        if let index = queue.firstIndex(where: { $0.number == number }) {
            queue.remove(at: index)
            return
        }
        for (slot, state) in slots {
            switch state {
            case .opening(var batch):
                guard let index = batch.claims.firstIndex(where: { $0.number == number }) else { continue }
                batch.answered[index] = true
                slots[slot] = .opening(batch)
                return
            case .sending(let lane, var batch):
                guard let index = batch.claims.firstIndex(where: { $0.number == number }) else { continue }
                batch.withdrawn.insert(index)
                slots[slot] = .sending(lane, batch)
                return
            case .idle:
                continue
            }
        }
    }

    /// A slot's lane opened.
    mutating func laneOpened(slot: SlotID, lane: Lane, now: Instant) -> Actions {
        var actions = Actions()
        guard case .opening(var batch) = slots[slot] else {
            actions.releases.append(lane)  // abandoned meanwhile: nobody needs it
            return actions
        }
        answerLate(&batch, now: now, &actions)
        if batch.isSettled {
            slots[slot] = .idle(lane, since: now)
            if closed {
                slots[slot] = nil
                actions.releases.append(lane)
            }
        } else {
            send(batch, slot: slot, lane: lane, now: now, &actions)
        }
        dispatch(now: now, &actions)
        reportStopIfDone(&actions)
        return actions
    }

    /// A slot's lane could not be opened: the batch in hand fails (fail closed).
    mutating func laneFailed(slot: SlotID, error: any Error, now: Instant) -> Actions {
        var actions = Actions()
        guard case .opening(let batch) = slots[slot] else { return actions }
        slots[slot] = nil
        latestOutcomeFailed = true
        answer(batch, with: .failed(error), &actions)
        dispatch(now: now, &actions)
        reportStopIfDone(&actions)
        return actions
    }

    /// The runner found a held lane closed before sending a batch on it: the lane is left
    /// and the batch opens another.
    mutating func laneClosed(slot: SlotID, batch number: UInt64) -> Actions {
        var actions = Actions()
        guard case .sending(let lane, var batch) = slots[slot], batch.number == number else { return actions }
        // The statement never ran: a claim withdrawn meanwhile is never sent, as one
        // cancelled while its lane opens.
        for index in batch.withdrawn { batch.answered[index] = true }
        batch.withdrawn = []
        actions.abandonedLanes.append(lane)
        slots[slot] = nil
        let replacement = nextSlot
        nextSlot += 1
        slots[replacement] = .opening(batch)
        actions.opens.append(replacement)
        return actions
    }

    /// A statement answered (or failed). Ignored when its slot was abandoned meanwhile: its
    /// claims were answered at their deadline.
    mutating func statementFinished(slot: SlotID, batch number: UInt64, result: Result<Set<ReplayID>, any Error>, now: Instant) -> Actions {
        var actions = Actions()
        guard case .sending(let lane, let batch) = slots[slot], batch.number == number else { return actions }
        switch result {
        case .success(let recorded):
            latestOutcomeFailed = false
            // The first claim of a recorded id still waiting wins; any other is a replay. An id
            // recorded when every claim of it had been answered (late) or withdrawn was
            // granted to nobody: its row is released.
            var won = Set<ReplayID>()
            for (index, claim) in batch.claims.enumerated() where !batch.answered[index] && !batch.withdrawn.contains(index) {
                let wins = recorded.contains(claim.id) && won.insert(claim.id).inserted
                actions.answers.append((claim.waiter, wins ? .granted : .replayed))
            }
            release(Array(recorded.subtracting(won)), recordedBy: batch, now: now)
            if closed {
                slots[slot] = nil
                actions.releases.append(lane)
            } else if let next = takeBatch(now: now, &actions) {
                send(next, slot: slot, lane: lane, now: now, &actions)
            } else {
                slots[slot] = .idle(lane, since: now)
            }
        case .failure(let error):
            latestOutcomeFailed = true
            answer(batch, with: .failed(error), &actions)
            release(batch.statement?.ids ?? [], recordedBy: batch, now: now)  // it may have committed
            slots[slot] = nil
            actions.abandonedLanes.append(lane)  // the connection may be broken
        }
        dispatch(now: now, &actions)
        reportStopIfDone(&actions)
        return actions
    }

    /// The watcher's tick: answers claims past their deadline, abandons slots whose every
    /// claim is answered (replacing them if claims wait), and lets slots idle a whole
    /// watch interval leave their lanes.
    mutating func tick(now: Instant) -> Actions {
        var actions = Actions()
        dropLateQueued(now: now, &actions)
        for slot in slots.keys.sorted() {
            switch slots[slot]! {
            case .opening(var batch):
                answerLate(&batch, now: now, &actions)
                if batch.isSettled {
                    slots[slot] = nil
                    latestOutcomeFailed = true
                    actions.abandonedOpenings.append(slot)
                } else {
                    slots[slot] = .opening(batch)
                }
            case .sending(let lane, var batch):
                answerLate(&batch, now: now, &actions)
                if batch.isSettled {
                    slots[slot] = nil
                    latestOutcomeFailed = true
                    actions.abandonedLanes.append(lane)
                    release(batch.statement?.ids ?? [], recordedBy: batch, now: now)  // it may still commit
                } else {
                    slots[slot] = .sending(lane, batch)
                }
            case .idle(let lane, let since):
                if since.advanced(by: watchInterval) <= now {
                    slots[slot] = nil
                    actions.releases.append(lane)
                }
            }
        }
        dispatch(now: now, &actions)
        reportStopIfDone(&actions)
        return actions
    }

    /// Stops taking claims: fails the queued ones and lets idle slots go; batches in flight
    /// keep their deadlines.
    mutating func close() -> Actions {
        var actions = Actions()
        closed = true
        for claim in queue { actions.answers.append((claim.waiter, .stopped)) }
        queue = []
        for slot in slots.keys.sorted() {
            if case .idle(let lane, _) = slots[slot]! {
                slots[slot] = nil
                actions.releases.append(lane)
            }
        }
        reportStopIfDone(&actions)
        return actions
    }

    /// Stops at once (the runner was cancelled): closes, and abandons every batch in flight
    /// with its claims answered `stopped`.
    mutating func shutDown() -> Actions {
        var actions = close()
        for slot in slots.keys.sorted() {
            switch slots[slot]! {
            case .opening(let batch):
                answer(batch, with: .stopped, &actions)
                actions.abandonedOpenings.append(slot)
            case .sending(let lane, let batch):
                answer(batch, with: .stopped, &actions)
                actions.abandonedLanes.append(lane)
            case .idle(let lane, _):
                actions.releases.append(lane)
            }
        }
        slots = [:]
        reportStopIfDone(&actions)
        return actions
    }

    // MARK: Helpers

    /// Hands queued claims to slots: an idle slot takes a batch on its lane; else a new slot
    /// opens a lane for one while fewer than `maximumInFlight` exist.
    private mutating func dispatch(now: Instant, _ actions: inout Actions) {
        guard running, !closed else { return }
        while !queue.isEmpty {
            if let slot = slots.keys.filter({ if case .idle = slots[$0]! { true } else { false } }).min(),
               case .idle(let lane, _) = slots[slot]! {
                guard let batch = takeBatch(now: now, &actions) else { return }
                send(batch, slot: slot, lane: lane, now: now, &actions)
            } else if slots.count < maximumInFlight {
                guard let batch = takeBatch(now: now, &actions) else { return }
                let slot = nextSlot
                nextSlot += 1
                slots[slot] = .opening(batch)
                actions.opens.append(slot)
            } else {
                return
            }
        }
    }

    /// The queued claims still within their deadline, oldest first, up to `maximumBatch`.
    private mutating func takeBatch(now: Instant, _ actions: inout Actions) -> Batch? {
        dropLateQueued(now: now, &actions)
        guard !queue.isEmpty else { return nil }
        let count = min(maximumBatch, queue.count)
        let claims = Array(queue.prefix(count))
        queue.removeFirst(count)
        defer { nextBatch += 1 }
        return Batch(number: nextBatch, claims: claims, answered: Array(repeating: false, count: claims.count))
    }

    /// Puts a batch on a lane: its unanswered claims, each id once, ascending, with the
    /// releases still pending.
    private mutating func send(_ batch: Batch, slot: SlotID, lane: Lane, now: Instant, _ actions: inout Actions) {
        var batch = batch
        var retention: [ReplayID: Int64] = [:]
        var deadline: Instant?
        for (index, claim) in batch.claims.enumerated() where !batch.answered[index] {
            retention[claim.id] = max(retention[claim.id] ?? .min, claim.expiresAt)
            deadline = min(deadline ?? claim.deadline, claim.deadline)
        }
        let ids = retention.keys.sorted { ($0.high, $0.low) < ($1.high, $1.low) }
        releases = releases.filter { $0.value > now }  // past their watch: dropped for good
        let statement = ClaimBatch(
            ids: ids,
            expiresAt: ids.map { retention[$0]! },
            attempt: attemptSeed &+ Int64(truncatingIfNeeded: batch.number),
            releases: Self.inIDOrder(releases.keys)
        )
        batch.statement = statement
        slots[slot] = .sending(lane, batch)
        actions.sends.append(Send(slot: slot, batch: batch.number, statement: statement, lane: lane, deadline: deadline!))
    }

    /// Records the rows a statement in doubt may have written for claims it granted to
    /// nobody, to be carried by the statements sent within `releaseWatch`; beyond
    /// `maximumPendingReleases`, the oldest go (their rows stay until swept: fail closed).
    private mutating func release(_ ids: [ReplayID], recordedBy batch: Batch, now: Instant) {
        guard let attempt = batch.statement?.attempt, !ids.isEmpty else { return }
        let until = now.advanced(by: releaseWatch)
        for id in ids { releases[ClaimRelease(id: id, attempt: attempt)] = until }
        if releases.count > maximumPendingReleases {
            let oldest = releases.sorted { $0.value < $1.value }.prefix(releases.count - maximumPendingReleases)
            for (release, _) in oldest { releases[release] = nil }
        }
    }

    private mutating func dropLateQueued(now: Instant, _ actions: inout Actions) {
        queue.removeAll { claim in
            guard claim.deadline <= now else { return false }
            actions.answers.append((claim.waiter, .late))
            return true
        }
    }

    /// Answers the claims past their deadline `late` (a withdrawn one was answered by the
    /// runner: it only counts as settled).
    private func answerLate(_ batch: inout Batch, now: Instant, _ actions: inout Actions) {
        for index in batch.claims.indices where !batch.answered[index] && batch.claims[index].deadline <= now {
            batch.answered[index] = true
            if !batch.withdrawn.contains(index) { actions.answers.append((batch.claims[index].waiter, .late)) }
        }
    }

    private func answer(_ batch: Batch, with answer: Answer, _ actions: inout Actions) {
        for (index, claim) in batch.claims.enumerated() where !batch.answered[index] && !batch.withdrawn.contains(index) {
            actions.answers.append((claim.waiter, answer))
        }
    }

    private mutating func reportStopIfDone(_ actions: inout Actions) {
        guard closed, slots.isEmpty, !stopReported else { return }
        stopReported = true
        actions.stopped = true
    }
}
