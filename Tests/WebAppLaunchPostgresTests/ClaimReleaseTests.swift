import Testing
import WebAppLaunch
@testable import WebAppLaunchPostgres
import WebAppLaunchTestSupport

/// "A launch answered 503 claims nothing", when the database records it all the same: the
/// state machine's releases, event by event. The whole-store form, on a real database that
/// commits a statement the store gave up on, is in `PostgresReplayStoreTests`.
@Suite("Claim batcher state machine: rows recorded for claims granted to nobody are released")
struct ClaimReleaseTests {
    typealias Machine = ClaimBatcherStateMachineTests.Machine
    typealias Fixtures = ClaimBatcherStateMachineTests

    /// A machine with one slot, releases watched for 1 s, attempts from 7,000; `queued` claims
    /// arrive before it starts, so they go out in its first statement.
    static func machine(queued: [Machine.Claim] = [], maximumPendingReleases: Int = 4_096) -> Machine {
        var machine = Machine(
            maximumBatch: 256,
            maximumInFlight: 1,
            watchInterval: .milliseconds(10),
            releaseWatch: .milliseconds(1_000),
            maximumPendingReleases: maximumPendingReleases,
            attemptSeed: 7_000
        )
        for claim in queued { _ = machine.claim(claim, now: Fixtures.at(0)) }
        _ = machine.start(now: Fixtures.at(0))
        return machine
    }

    @Test("a statement abandoned at its deadline: each of its ids is released under its attempt, carried by every statement sent until the release watch ends, and by none after")
    func abandonedStatementIsReleased() {
        var machine = Self.machine(queued: [Fixtures.claim(1), Fixtures.claim(2)])
        let lost = machine.laneOpened(slot: 0, lane: "A", now: Fixtures.at(0)).sends[0]
        #expect(lost.statement.ids == [Fixtures.id(1), Fixtures.id(2)])
        #expect(lost.statement.attempt == 7_000)
        #expect(lost.statement.releases.isEmpty)
        let deadline = machine.tick(now: Fixtures.at(200))
        #expect(deadline.abandonedLanes == ["A"])
        let released = [ClaimRelease(id: Fixtures.id(1), attempt: 7_000), ClaimRelease(id: Fixtures.id(2), attempt: 7_000)]
        #expect(machine.pendingReleases(at: Fixtures.at(200)) == released)

        // The user retries launch 1: its statement deletes the row first, then records it anew.
        _ = machine.claim(Fixtures.claim(3, id: 1, at: 300), now: Fixtures.at(300))
        let retry = machine.laneOpened(slot: 1, lane: "B", now: Fixtures.at(300)).sends[0]
        #expect(retry.statement.ids == [Fixtures.id(1)])
        #expect(retry.statement.attempt == 7_001)
        #expect(retry.statement.releases == released)
        #expect(Fixtures.answers(machine.statementFinished(slot: 1, batch: retry.batch, result: .success([Fixtures.id(1)]), now: Fixtures.at(301))) == ["3 granted"])

        // Still carried (the abandoned statement may commit after the first deletion) until the watch ends.
        let carried = machine.claim(Fixtures.claim(4, at: 1_199), now: Fixtures.at(1_199)).sends[0]
        #expect(carried.statement.releases == released)
        _ = machine.statementFinished(slot: 1, batch: carried.batch, result: .success([Fixtures.id(4)]), now: Fixtures.at(1_199))
        let after = machine.claim(Fixtures.claim(5, at: 1_200), now: Fixtures.at(1_200)).sends[0]
        #expect(after.statement.releases.isEmpty, "released past the watch")
    }

    @Test("a statement that answers after one of its claims was answered late: only that claim's recorded id is released; the ids it granted, and the ids it did not record, are not")
    func partlyLateStatementReleasesOnlyTheLateClaim() {
        var machine = Self.machine()
        _ = machine.claim(Fixtures.claim(1), now: Fixtures.at(0))
        let first = machine.laneOpened(slot: 0, lane: "A", now: Fixtures.at(0)).sends[0]
        _ = machine.claim(Fixtures.claim(2, at: 50), now: Fixtures.at(50))
        _ = machine.claim(Fixtures.claim(3, at: 90), now: Fixtures.at(90))
        _ = machine.claim(Fixtures.claim(4, at: 90), now: Fixtures.at(90))
        let second = machine.statementFinished(slot: 0, batch: first.batch, result: .success([Fixtures.id(1)]), now: Fixtures.at(100)).sends[0]
        #expect(Fixtures.answers(machine.tick(now: Fixtures.at(250))) == ["2 late"])
        let answered = machine.statementFinished(slot: 0, batch: second.batch, result: .success([Fixtures.id(2), Fixtures.id(3)]), now: Fixtures.at(260))
        #expect(Fixtures.answers(answered) == ["3 granted", "4 replayed"])
        #expect(machine.pendingReleases(at: Fixtures.at(260)) == [ClaimRelease(id: Fixtures.id(2), attempt: second.statement.attempt)])
    }

    @Test("a caller that gave up while its statement ran: its recorded id goes to the next claim of that id in the statement, or, with none, is released")
    func cancelledClaimInFlight() {
        var machine = Self.machine(queued: [Fixtures.claim(1), Fixtures.claim(2, id: 1), Fixtures.claim(3)])
        let send = machine.laneOpened(slot: 0, lane: "A", now: Fixtures.at(0)).sends[0]
        machine.cancel(claim: 1)  // the runner answered it
        machine.cancel(claim: 3)
        #expect(machine.tick(now: Fixtures.at(100)).isEmpty, "a statement whose callers gave up was abandoned before its deadline")
        #expect(machine.isReady, "a caller giving up made the store not ready")
        let answered = machine.statementFinished(slot: 0, batch: send.batch, result: .success([Fixtures.id(1), Fixtures.id(3)]), now: Fixtures.at(5))
        #expect(Fixtures.answers(answered) == ["2 granted"], "a cancelled claim answered twice, or its id refused to the claim still waiting")
        #expect(machine.pendingReleases(at: Fixtures.at(5)) == [ClaimRelease(id: Fixtures.id(3), attempt: send.statement.attempt)])
    }

    @Test("a claim withdrawn while its statement was handed to a lane that turned out closed is not sent again: the replacement carries only the claims still waiting")
    func withdrawnClaimIsNotResent() {
        var machine = Self.machine(queued: [Fixtures.claim(1), Fixtures.claim(2)])
        let first = machine.laneOpened(slot: 0, lane: "A", now: Fixtures.at(0)).sends[0]
        _ = machine.statementFinished(slot: 0, batch: first.batch, result: .success([Fixtures.id(1), Fixtures.id(2)]), now: Fixtures.at(1))
        let third = machine.claim(Fixtures.claim(3, at: 2), now: Fixtures.at(2)).sends
        #expect(third.map(\.statement.ids) == [[Fixtures.id(3)]], "control: the idle slot did not take claim 3")
        #expect(machine.claim(Fixtures.claim(4, at: 2), now: Fixtures.at(2)).sends.isEmpty, "control: claim 4 did not wait behind it")
        machine.cancel(claim: 3)
        let left = machine.laneClosed(slot: 0, batch: first.batch + 1)
        #expect(left.opens == [1])
        let resent = machine.laneOpened(slot: 1, lane: "B", now: Fixtures.at(3)).sends
        #expect(resent.map(\.statement.ids) == [[Fixtures.id(4)]], "a withdrawn claim went out again")
    }

    @Test("a failed statement's ids are released (the connection may have broken after the commit); a lane found closed before its statement keeps the releases pending for the replacement")
    func failedStatementIsReleased() {
        var machine = Self.machine()
        _ = machine.claim(Fixtures.claim(1), now: Fixtures.at(0))
        let first = machine.laneOpened(slot: 0, lane: "A", now: Fixtures.at(0)).sends[0]
        _ = machine.statementFinished(slot: 0, batch: first.batch, result: .failure(Fixtures.Failed()), now: Fixtures.at(1))
        let released = [ClaimRelease(id: Fixtures.id(1), attempt: first.statement.attempt)]
        #expect(machine.pendingReleases(at: Fixtures.at(1)) == released)
        _ = machine.claim(Fixtures.claim(2, at: 2), now: Fixtures.at(2))
        let second = machine.laneOpened(slot: 1, lane: "B", now: Fixtures.at(2)).sends[0]
        _ = machine.statementFinished(slot: 1, batch: second.batch, result: .success([Fixtures.id(2)]), now: Fixtures.at(3))
        let unsent = machine.claim(Fixtures.claim(3, at: 4), now: Fixtures.at(4)).sends[0]
        #expect(unsent.statement.releases == released)
        let left = machine.laneClosed(slot: 1, batch: unsent.batch)
        #expect(left.opens == [2])
        let resent = machine.laneOpened(slot: 2, lane: "C", now: Fixtures.at(5)).sends[0]
        #expect(resent.statement.releases == released)
        #expect(resent.statement.attempt == unsent.statement.attempt, "the statement that never went out kept its attempt")
    }

    @Test("at most maximumPendingReleases are carried: beyond that the oldest go (fail closed: their rows stay until swept)")
    func pendingReleasesAreBounded() {
        var machine = Self.machine(maximumPendingReleases: 2)
        for (waiter, time) in [(1, 0), (2, 300), (3, 600)] {
            _ = machine.claim(Fixtures.claim(waiter, at: time), now: Fixtures.at(time))
            _ = machine.laneOpened(slot: UInt64(waiter - 1), lane: "L\(waiter)", now: Fixtures.at(time))
            _ = machine.tick(now: Fixtures.at(time + 200))
        }
        #expect(machine.pendingReleases(at: Fixtures.at(800)).map(\.id) == [Fixtures.id(2), Fixtures.id(3)])
    }
}
