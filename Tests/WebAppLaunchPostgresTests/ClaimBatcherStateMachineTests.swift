import Testing
import WebAppLaunch
@testable import WebAppLaunchPostgres
import WebAppLaunchTestSupport

/// The claim batcher's decisions on their own: events in, actions out, no database, no
/// clock, no task. Waiters are numbers, lanes are names, instants are milliseconds.
@Suite("Claim batcher state machine: every event's actions, synchronously")
struct ClaimBatcherStateMachineTests {
    typealias Machine = ClaimBatcherStateMachine<ManualClock.Instant, Int, String>
    typealias Instant = ManualClock.Instant

    static func at(_ milliseconds: Int) -> Instant { Instant(offset: .milliseconds(milliseconds)) }
    static func id(_ n: UInt64) -> ReplayID { ReplayID(high: n, low: ~n) }

    /// A claim numbered `waiter`, arriving at `arrival` ms with a 200 ms timeout.
    static func claim(_ waiter: Int, id n: UInt64? = nil, at arrival: Int = 0) -> Machine.Claim {
        Machine.Claim(number: UInt64(waiter), id: id(n ?? UInt64(waiter)), expiresAt: 1_000 + Int64(waiter), waiter: waiter, deadline: at(arrival + 200))
    }

    static func machine(maximumInFlight: Int = 1, maximumBatch: Int = 256, started: Bool = true) -> Machine {
        var machine = Machine(maximumBatch: maximumBatch, maximumInFlight: maximumInFlight, watchInterval: .milliseconds(10))
        if started { #expect(machine.start(now: at(0)).isEmpty) }
        return machine
    }

    struct Failed: Error {}

    /// The answers as (waiter, word) pairs, comparable.
    static func answers(_ actions: Machine.Actions) -> [String] {
        actions.answers.map { waiter, answer in
            switch answer {
            case .granted: "\(waiter) granted"
            case .replayed: "\(waiter) replayed"
            case .failed: "\(waiter) failed"
            case .late: "\(waiter) late"
            case .stopped: "\(waiter) stopped"
            }
        }
    }

    @Test("a claim with a slot free opens a lane, goes out on it once open, is granted, and the slot then waits on its lane")
    func oneClaimRoundTrip() {
        var machine = Self.machine()
        let queued = machine.claim(Self.claim(1), now: Self.at(0))
        #expect(queued.opens == [0])
        #expect(queued.answers.isEmpty && queued.sends.isEmpty)
        let opened = machine.laneOpened(slot: 0, lane: "A", now: Self.at(1))
        #expect(opened.sends.map(\.lane) == ["A"])
        #expect(opened.sends.first?.statement.ids == [Self.id(1)])
        #expect(opened.sends.first?.statement.expiresAt == [1_001])
        #expect(opened.sends.first?.deadline == Self.at(200))
        let answered = machine.statementFinished(slot: 0, batch: opened.sends[0].batch, result: .success([Self.id(1)]), now: Self.at(2))
        #expect(Self.answers(answered) == ["1 granted"])
        #expect(machine.idleCount == 1)
        #expect(machine.isReady)
    }

    @Test("claims before the runner starts only queue; starting sends them out")
    func claimsBeforeStartQueue() {
        var machine = Self.machine(started: false)
        #expect(machine.claim(Self.claim(1), now: Self.at(0)).isEmpty)
        #expect(machine.queuedCount == 1)
        #expect(machine.start(now: Self.at(1)).opens == [0])
        #expect(machine.queuedCount == 0)
    }

    @Test("claims that arrive while every slot is busy go out together on the lane that frees, each id once and ascending; the first claim of a recorded id is granted, the others replayed")
    func queuedClaimsShareTheNextStatement() {
        var machine = Self.machine()
        _ = machine.claim(Self.claim(1), now: Self.at(0))
        let first = machine.laneOpened(slot: 0, lane: "A", now: Self.at(0)).sends[0]
        for (waiter, n) in [(2, 9), (3, 3), (4, 9), (5, 1)] as [(Int, UInt64)] {
            let actions = machine.claim(Self.claim(waiter, id: n, at: 1), now: Self.at(1))
            #expect(actions.isEmpty, "a claim went out while the only slot was busy")
        }
        #expect(machine.queuedCount == 4)
        let finished = machine.statementFinished(slot: 0, batch: first.batch, result: .success([Self.id(1)]), now: Self.at(5))
        #expect(Self.answers(finished) == ["1 granted"])
        #expect(finished.sends.count == 1)
        let next = finished.sends[0]
        #expect(next.lane == "A", "the next batch did not stay on the slot's lane")
        #expect(next.statement.ids == [Self.id(1), Self.id(3), Self.id(9)])
        #expect(next.statement.expiresAt == [1_005, 1_003, 1_004], "an id's retention is the latest of its claims")
        let answered = machine.statementFinished(slot: 0, batch: next.batch, result: .success([Self.id(9), Self.id(3)]), now: Self.at(6))
        #expect(Self.answers(answered) == ["2 granted", "3 granted", "4 replayed", "5 replayed"])
    }

    @Test("batches hold at most maximumBatch claims, oldest first")
    func batchesAreBounded() {
        var machine = Self.machine(maximumBatch: 2)
        _ = machine.claim(Self.claim(1), now: Self.at(0))
        let first = machine.laneOpened(slot: 0, lane: "A", now: Self.at(0)).sends[0]
        for waiter in 2...4 { _ = machine.claim(Self.claim(waiter), now: Self.at(0)) }
        let finished = machine.statementFinished(slot: 0, batch: first.batch, result: .success([]), now: Self.at(1))
        #expect(finished.sends.map(\.statement.ids) == [[Self.id(2), Self.id(3)]])
        #expect(machine.queuedCount == 1)
    }

    @Test("an idle slot takes the next claim on its own lane, and gives the lane back after a whole watch interval without one")
    func idleSlotKeepsThenLeavesItsLane() {
        var machine = Self.machine()
        _ = machine.claim(Self.claim(1), now: Self.at(0))
        let first = machine.laneOpened(slot: 0, lane: "A", now: Self.at(0)).sends[0]
        _ = machine.statementFinished(slot: 0, batch: first.batch, result: .success([Self.id(1)]), now: Self.at(10))
        let woken = machine.claim(Self.claim(2, at: 15), now: Self.at(15))
        #expect(woken.sends.map(\.lane) == ["A"])
        #expect(woken.opens.isEmpty)
        _ = machine.statementFinished(slot: 0, batch: woken.sends[0].batch, result: .success([]), now: Self.at(20))
        #expect(machine.tick(now: Self.at(29)).releases.isEmpty, "left its lane before a whole watch interval")
        #expect(machine.tick(now: Self.at(30)).releases == ["A"])
        #expect(machine.slotCount == 0)
        #expect(machine.claim(Self.claim(3, at: 40), now: Self.at(40)).opens == [1], "the next claim did not open a new lane")
    }

    @Test("a failed statement fails its claims (fail closed), closes its lane, marks the store not ready, and claims waiting behind it open a replacement lane")
    func failedStatementIsReplaced() {
        var machine = Self.machine()
        _ = machine.claim(Self.claim(1), now: Self.at(0))
        let first = machine.laneOpened(slot: 0, lane: "A", now: Self.at(0)).sends[0]
        _ = machine.claim(Self.claim(2), now: Self.at(1))
        let failed = machine.statementFinished(slot: 0, batch: first.batch, result: .failure(Failed()), now: Self.at(2))
        #expect(Self.answers(failed) == ["1 failed"])
        #expect(failed.abandonedLanes == ["A"])
        #expect(failed.releases.isEmpty)
        #expect(failed.opens == [1])
        #expect(!machine.isReady)
        let replaced = machine.laneOpened(slot: 1, lane: "B", now: Self.at(3))
        let answered = machine.statementFinished(slot: 1, batch: replaced.sends[0].batch, result: .success([Self.id(2)]), now: Self.at(4))
        #expect(Self.answers(answered) == ["2 granted"])
        #expect(machine.isReady, "a successful statement did not make the store ready again")
    }

    @Test("a lane that cannot be opened fails the batch in hand and marks the store not ready; the next claim tries another")
    func unopenableLaneFailsClosed() {
        var machine = Self.machine()
        _ = machine.claim(Self.claim(1), now: Self.at(0))
        let refused = machine.laneFailed(slot: 0, error: Failed(), now: Self.at(1))
        #expect(Self.answers(refused) == ["1 failed"])
        #expect(!machine.isReady)
        #expect(machine.slotCount == 0)
        #expect(machine.claim(Self.claim(2, at: 2), now: Self.at(2)).opens == [1])
    }

    @Test("a held lane found closed before a statement is left, and its batch opens another lane")
    func closedLaneIsLeft() {
        var machine = Self.machine()
        _ = machine.claim(Self.claim(1), now: Self.at(0))
        let first = machine.laneOpened(slot: 0, lane: "A", now: Self.at(0)).sends[0]
        _ = machine.statementFinished(slot: 0, batch: first.batch, result: .success([]), now: Self.at(1))
        let send = machine.claim(Self.claim(2, at: 2), now: Self.at(2)).sends[0]
        let left = machine.laneClosed(slot: 0, batch: send.batch)
        #expect(left.abandonedLanes == ["A"])
        #expect(left.opens == [1])
        let reopened = machine.laneOpened(slot: 1, lane: "B", now: Self.at(3))
        #expect(reopened.sends.map(\.statement.ids) == [[Self.id(2)]])
        #expect(reopened.sends.map(\.lane) == ["B"])
    }

    @Test("a statement that never answers (a write the driver dropped): its claims are answered late at their deadline, the slot is abandoned and its lane closed, a replacement takes the claims behind it, and the lost statement's answer, if it ever comes, is ignored")
    func statementThatNeverAnswersIsAbandoned() {
        var machine = Self.machine()
        _ = machine.claim(Self.claim(1), now: Self.at(0))
        let lost = machine.laneOpened(slot: 0, lane: "A", now: Self.at(0)).sends[0]
        _ = machine.claim(Self.claim(2, at: 100), now: Self.at(100))
        #expect(machine.tick(now: Self.at(199)).isEmpty, "acted before the deadline")
        let deadline = machine.tick(now: Self.at(200))
        #expect(Self.answers(deadline) == ["1 late"])
        #expect(deadline.abandonedLanes == ["A"])
        #expect(deadline.opens == [1], "the claim behind the lost statement waits for a slot that never frees")
        #expect(!machine.isReady)
        let replaced = machine.laneOpened(slot: 1, lane: "B", now: Self.at(210))
        #expect(replaced.sends.map(\.statement.ids) == [[Self.id(2)]])
        let ghost = machine.statementFinished(slot: 0, batch: lost.batch, result: .success([Self.id(1)]), now: Self.at(5_000))
        #expect(ghost.isEmpty, "an abandoned statement's answer reached a claim")
    }

    @Test("a claim in a statement is answered late at its own deadline; the statement is abandoned only once every claim in it has been answered")
    func statementAbandonedOnlyWhenAllClaimsExpired() {
        var machine = Self.machine()
        _ = machine.claim(Self.claim(1), now: Self.at(0))
        let first = machine.laneOpened(slot: 0, lane: "A", now: Self.at(0)).sends[0]
        _ = machine.claim(Self.claim(2, at: 50), now: Self.at(50))
        _ = machine.claim(Self.claim(3, at: 90), now: Self.at(90))
        let second = machine.statementFinished(slot: 0, batch: first.batch, result: .success([]), now: Self.at(100)).sends[0]
        #expect(second.deadline == Self.at(250), "the database cutoff is not the batch's earliest deadline")
        let half = machine.tick(now: Self.at(250))
        #expect(Self.answers(half) == ["2 late"])
        #expect(half.abandonedLanes.isEmpty)
        let answered = machine.statementFinished(slot: 0, batch: second.batch, result: .success([Self.id(2), Self.id(3)]), now: Self.at(260))
        #expect(Self.answers(answered) == ["3 granted"], "a claim answered late was answered again")
    }

    @Test("a lane opening that never completes: its claims are answered late, the opening is abandoned, and a lane that opens after all is given back at once")
    func openingThatNeverCompletesIsAbandoned() {
        var machine = Self.machine()
        _ = machine.claim(Self.claim(1), now: Self.at(0))
        let deadline = machine.tick(now: Self.at(200))
        #expect(Self.answers(deadline) == ["1 late"])
        #expect(deadline.abandonedOpenings == [0])
        #expect(machine.slotCount == 0)
        #expect(!machine.isReady)
        let late = machine.laneOpened(slot: 0, lane: "A", now: Self.at(900))
        #expect(late.releases == ["A"])
        #expect(late.sends.isEmpty)
        #expect(machine.laneFailed(slot: 0, error: Failed(), now: Self.at(901)).isEmpty)
    }

    @Test("a claim that reaches its deadline while queued is answered late and never sent")
    func queuedClaimExpiresUnsent() {
        var machine = Self.machine()
        _ = machine.claim(Self.claim(1), now: Self.at(0))
        let first = machine.laneOpened(slot: 0, lane: "A", now: Self.at(0)).sends[0]
        _ = machine.claim(Self.claim(2, at: 10), now: Self.at(10))
        #expect(Self.answers(machine.tick(now: Self.at(190))).isEmpty)
        let finished = machine.statementFinished(slot: 0, batch: first.batch, result: .success([]), now: Self.at(215))
        #expect(Self.answers(finished) == ["1 replayed", "2 late"])
        #expect(finished.sends.isEmpty, "an expired claim was sent")
    }

    @Test("a cancelled claim is never sent, whether queued or in a batch waiting for its lane")
    func cancelledClaimsAreNotSent() {
        var machine = Self.machine()
        _ = machine.claim(Self.claim(1), now: Self.at(0))
        machine.cancel(claim: 1)
        let opened = machine.laneOpened(slot: 0, lane: "A", now: Self.at(1))
        #expect(opened.sends.isEmpty)
        #expect(machine.idleCount == 1)
        let busy = machine.claim(Self.claim(2), now: Self.at(2)).sends[0]
        _ = machine.claim(Self.claim(3), now: Self.at(2))
        machine.cancel(claim: 3)
        #expect(machine.queuedCount == 0)
        let finished = machine.statementFinished(slot: 0, batch: busy.batch, result: .success([Self.id(2)]), now: Self.at(3))
        #expect(finished.sends.isEmpty)
        #expect(Self.answers(finished) == ["2 granted"])
    }

    @Test("closing fails the queued claims, gives idle lanes back, lets a statement in flight keep its deadline, refuses new claims, and reports stopped once the last slot is gone, even if the database never answers")
    func closeIsBoundedByTheDeadline() {
        var machine = Self.machine(maximumInFlight: 2)
        _ = machine.claim(Self.claim(1), now: Self.at(0))
        _ = machine.laneOpened(slot: 0, lane: "A", now: Self.at(0))
        _ = machine.claim(Self.claim(2), now: Self.at(0))
        let idle = machine.laneOpened(slot: 1, lane: "B", now: Self.at(0)).sends[0]
        _ = machine.statementFinished(slot: 1, batch: idle.batch, result: .success([]), now: Self.at(1))
        _ = machine.claim(Self.claim(3), now: Self.at(1))  // slot 1 takes it
        _ = machine.claim(Self.claim(4), now: Self.at(2))  // queued: both slots busy
        let closed = machine.close()
        #expect(Self.answers(closed) == ["4 stopped"])
        #expect(!closed.stopped)
        #expect(!machine.isReady)
        #expect(Self.answers(machine.claim(Self.claim(5), now: Self.at(3))) == ["5 stopped"])
        let deadline = machine.tick(now: Self.at(201))
        #expect(Self.answers(deadline) == ["1 late", "3 late"])
        #expect(deadline.abandonedLanes == ["A", "B"])
        #expect(deadline.stopped, "closed, with no slot left, and not stopped")
        #expect(deadline.opens.isEmpty)
    }

    @Test("closing with a statement that answers in time gives its lane back and stops")
    func closeAfterAnAnswer() {
        var machine = Self.machine()
        _ = machine.claim(Self.claim(1), now: Self.at(0))
        let send = machine.laneOpened(slot: 0, lane: "A", now: Self.at(0)).sends[0]
        #expect(!machine.close().stopped)
        let finished = machine.statementFinished(slot: 0, batch: send.batch, result: .success([Self.id(1)]), now: Self.at(5))
        #expect(Self.answers(finished) == ["1 granted"])
        #expect(finished.releases == ["A"])
        #expect(finished.stopped)
    }

    @Test("shutting down abandons every statement and opening at once, answers their claims stopped, and stops")
    func shutDownIsImmediate() {
        var machine = Self.machine(maximumInFlight: 2)
        _ = machine.claim(Self.claim(1), now: Self.at(0))
        _ = machine.laneOpened(slot: 0, lane: "A", now: Self.at(0))
        _ = machine.claim(Self.claim(2), now: Self.at(0))  // slot 1 opening
        let down = machine.shutDown()
        #expect(Self.answers(down) == ["1 stopped", "2 stopped"])
        #expect(down.abandonedLanes == ["A"])
        #expect(down.abandonedOpenings == [1])
        #expect(down.stopped)
        #expect(machine.tick(now: Self.at(500)).isEmpty, "stopped twice")
    }

    @Test("closed before the runner started: the queued claims are answered stopped, the batcher is stopped at once, and starting opens nothing")
    func closedBeforeStart() {
        var machine = Self.machine(started: false)
        _ = machine.claim(Self.claim(1), now: Self.at(0))
        let closed = machine.close()
        #expect(Self.answers(closed) == ["1 stopped"])
        #expect(closed.stopped)
        #expect(machine.start(now: Self.at(1)).isEmpty)
    }

    /// A deterministic generator, so a failing sequence can be replayed from its seed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test("over random sequences of events (callers that give up; statements that fail or are abandoned sometimes committed all the same): never more slots than allowed, no statement on a lane twice at once, every claim answered exactly once, only a recorded id granted and each id granted at most once, a granted row never released, every row granted to nobody named by a pending release, and a close always ends in stopped", arguments: 0..<40)
    func randomSequencesKeepTheInvariants(seed: UInt64) {
        var random = SplitMix(state: seed)
        let maximumInFlight = Int.random(in: 1...3, using: &random)
        var machine = Self.machine(maximumInFlight: maximumInFlight, maximumBatch: Int.random(in: 1...4, using: &random))
        var now = 0
        var nextWaiter = 1
        var answered: [Int: Int] = [:]
        var granted: [ReplayID: Int] = [:]
        /// The table: each id's row and the attempt that wrote it.
        var table: [ReplayID: Int64] = [:]
        /// The rows whose statement granted their id.
        var grantedRows = Set<ClaimRelease>()
        var opening: [UInt64] = []
        var inFlight: [Machine.Send] = []
        /// Statements abandoned or failed that the database may still commit.
        var ghosts: [Machine.Send] = []
        var laneNames = 0
        var stopped = 0
        var idOf: [Int: ReplayID] = [:]

        /// The database runs a statement: its releases, then its inserts; the ids it recorded.
        func commit(_ statement: ClaimBatch) -> Set<ReplayID> {
            for release in statement.releases where table[release.id] == release.attempt { table[release.id] = nil }
            let recorded = Set(statement.ids.filter { table[$0] == nil })
            for id in recorded { table[id] = statement.attempt }
            return recorded
        }

        func apply(_ actions: Machine.Actions) {
            for (waiter, answer) in actions.answers {
                answered[waiter, default: 0] += 1
                if case .granted = answer { granted[idOf[waiter]!, default: 0] += 1 }
            }
            opening += actions.opens
            opening.removeAll { actions.abandonedOpenings.contains($0) }
            ghosts += inFlight.filter { send in actions.abandonedLanes.contains(send.lane) }
            inFlight.removeAll { send in actions.abandonedLanes.contains(send.lane) }
            inFlight += actions.sends
            if actions.stopped { stopped += 1 }
            let lanes = inFlight.map(\.lane)
            #expect(Set(lanes).count == lanes.count, "two statements at once on one lane (seed \(seed))")
            #expect(machine.slotCount <= maximumInFlight, "more slots than allowed (seed \(seed))")
        }

        for _ in 0..<300 {
            now += Int.random(in: 0...15, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0...3:
                let waiter = nextWaiter
                nextWaiter += 1
                let claim = Self.claim(waiter, id: UInt64.random(in: 0..<12, using: &random), at: now)
                idOf[waiter] = claim.id
                apply(machine.claim(claim, now: Self.at(now)))
            case 4 where !opening.isEmpty:
                let slot = opening.removeFirst()
                laneNames += 1
                if Bool.random(using: &random) {
                    apply(machine.laneOpened(slot: slot, lane: "L\(laneNames)", now: Self.at(now)))
                } else {
                    apply(machine.laneFailed(slot: slot, error: Failed(), now: Self.at(now)))
                }
            case 5...6 where !inFlight.isEmpty:
                let send = inFlight.remove(at: Int.random(in: 0..<inFlight.count, using: &random))
                if Int.random(in: 0..<5, using: &random) == 0 {
                    // The connection broke after the commit, or before it (the database may commit later).
                    if Bool.random(using: &random) { _ = commit(send.statement) } else { ghosts.append(send) }
                    apply(machine.statementFinished(slot: send.slot, batch: send.batch, result: .failure(Failed()), now: Self.at(now)))
                } else {
                    let recorded = commit(send.statement)
                    let actions = machine.statementFinished(slot: send.slot, batch: send.batch, result: .success(recorded), now: Self.at(now))
                    for case (let waiter, .granted) in actions.answers {
                        grantedRows.insert(ClaimRelease(id: idOf[waiter]!, attempt: send.statement.attempt))
                    }
                    apply(actions)
                }
            case 9 where Int.random(in: 0..<3, using: &random) == 0:
                // A caller gives up: the runner answers it, and tells the machine.
                let waiting = (1..<nextWaiter).filter { answered[$0] == nil }
                guard let waiter = waiting.randomElement(using: &random) else { break }
                answered[waiter, default: 0] += 1
                machine.cancel(claim: UInt64(waiter))
            case 8 where !ghosts.isEmpty:
                // A paused database resumes a statement the store gave up on, and commits it.
                _ = commit(ghosts.remove(at: Int.random(in: 0..<ghosts.count, using: &random)).statement)
            case 7 where !inFlight.isEmpty:
                let send = inFlight.remove(at: 0)
                apply(machine.laneClosed(slot: send.slot, batch: send.batch))
            default:
                apply(machine.tick(now: Self.at(now)))
            }
        }
        let pending = Set(machine.pendingReleases(at: Self.at(now)))
        for (id, attempt) in table where !grantedRows.contains(ClaimRelease(id: id, attempt: attempt)) {
            #expect(pending.contains(ClaimRelease(id: id, attempt: attempt)), "a row granted to nobody is not released, so its retry would be refused (seed \(seed))")
        }
        for row in grantedRows {
            #expect(table[row.id] == row.attempt, "a granted launch's row was released (seed \(seed))")
        }
        apply(machine.close())
        apply(machine.tick(now: Self.at(now + 1_000)))  // whatever the database does
        #expect(stopped == 1, "closed and not stopped exactly once (seed \(seed))")
        #expect(machine.slotCount == 0)
        for waiter in 1..<nextWaiter {
            #expect(answered[waiter] == 1, "claim \(waiter) answered \(answered[waiter] ?? 0) times (seed \(seed))")
        }
        for (id, count) in granted {
            #expect(count == 1, "an id granted \(count) times (seed \(seed))")
            #expect(table[id] != nil, "an id granted that no statement recorded (seed \(seed))")
        }
    }
}
