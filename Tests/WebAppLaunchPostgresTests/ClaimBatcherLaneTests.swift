import Testing
import WebAppLaunch
@testable import WebAppLaunchPostgres
import WebAppLaunchTestSupport

/// A statement slot holds its lane (for the store, a pooled connection) while claims keep
/// coming, waits on it a watch interval when the queue is empty, leaves it after that, when
/// a statement failed or when the lane was closed while held, and a lane that cannot be
/// opened fails the claims in hand. Each test fixes the order of events with the manual
/// clock and one slot.
@Suite("Claim batcher: a slot keeps its connection while claims keep coming")
struct ClaimBatcherLaneTests {
    typealias Table = ClaimBatcherTests.Table
    typealias PendingClaim = ClaimBatcherDeadlineTests.PendingClaim

    static func id(_ n: UInt64) -> ReplayID { ClaimBatcherTests.id(n) }
    static func eventually(_ what: String, _ condition: () -> Bool) async throws {
        try await ClaimBatcherTests.eventually(what, condition)
    }

    @Test("batches queued behind a statement go out on the same lane, and so does a claim that comes once the queue is empty; a slot left waiting a watch interval leaves its lane, and the next claim opens another")
    func laneKeptWhileClaimsKeepComing() async throws {
        let clock = ManualClock()
        let table = Table(delay: .milliseconds(10), on: clock)
        let lanes = Lanes()
        // The default claim timeout of 2 s: the watcher looks every 100 ms of the clock.
        try await ClaimBatcherTests.withBatcher(table, maximumInFlight: 1, clock: clock, lanes: lanes) { batcher in
            let first = PendingClaim(batcher, Self.id(1))
            try await Self.eventually("the first statement is sent") { table.sent.count == 1 }
            let queued = (2...4).map { PendingClaim(batcher, Self.id($0)) }
            try await Self.eventually("three claims wait behind it") { batcher.queuedCount == 3 }
            clock.advance(by: .milliseconds(10))
            try await Self.eventually("the second statement is sent") { table.sent.count == 2 }
            clock.advance(by: .milliseconds(10))
            for claim in [first] + queued { #expect(try await claim.result().get()) }

            try await Self.eventually("the slot waits on its lane") { batcher.idleCount == 1 }
            let later = PendingClaim(batcher, Self.id(5))
            try await Self.eventually("the third statement is sent") { table.sent.count == 3 }
            clock.advance(by: .milliseconds(10))
            #expect(try await later.result().get())
            #expect(lanes.events == [.opened(1)], "the slot left its lane within a watch interval")

            try await Self.eventually("the slot leaves its lane after a watch interval") {
                clock.advance(by: .milliseconds(50))
                return lanes.events == [.opened(1), .closed(1)]
            }
            #expect(batcher.idleCount == 0)
            let last = PendingClaim(batcher, Self.id(6))
            try await Self.eventually("the fourth statement is sent") { table.sent.count == 4 }
            clock.advance(by: .milliseconds(10))
            #expect(try await last.result().get())
        }
        #expect(lanes.statementLanes == [1, 1, 1, 2])
        #expect(table.sent.map(\.ids) == [[Self.id(1)], [2, 3, 4].map { Self.id($0) }, [Self.id(5)], [Self.id(6)]])
        #expect(lanes.events == [.opened(1), .closed(1), .opened(2), .closed(2)], "closing the batcher did not send the waiting slot away")
    }

    @Test("a failed statement fails its claims and ends its lane (the connection may be broken); the batch behind it goes out on a new lane")
    func failedStatementLeavesLane() async throws {
        let clock = ManualClock()
        let table = Table(delay: .milliseconds(100), on: clock, failure: ClaimBatcherTests.StatementFailed()) {
            $0.ids.contains(Self.id(1))
        }
        let lanes = Lanes()
        try await ClaimBatcherTests.withBatcher(table, maximumInFlight: 1, clock: clock, lanes: lanes) { batcher in
            let failing = PendingClaim(batcher, Self.id(1))
            try await Self.eventually("the first statement is sent") { table.sent.count == 1 }
            let behind = PendingClaim(batcher, Self.id(2))
            try await Self.eventually("a claim waits behind it") { batcher.queuedCount == 1 }
            clock.advance(by: .milliseconds(100))
            await #expect(throws: ClaimBatcherTests.StatementFailed.self) { try await failing.result().get() }
            try await Self.eventually("the second statement is sent") { table.sent.count == 2 }
            clock.advance(by: .milliseconds(100))
            #expect(try await behind.result().get())
        }
        #expect(lanes.statementLanes == [1, 2])
        // The replacement lane opens without waiting for the left one to be given back.
        #expect(lanes.lifetimes == [1: [.opened(1), .closed(1)], 2: [.opened(2), .closed(2)]])
    }

    @Test("a lane closed by the other side while its slot waits on it is left, and the claim that wakes the slot goes out on a new lane, granted")
    func laneClosedWhileHeldIsLeft() async throws {
        let table = Table(delay: .milliseconds(1))
        let lanes = Lanes()
        try await ClaimBatcherTests.withBatcher(table, maximumInFlight: 1, lanes: lanes) { batcher in
            let first = try await batcher.claim(Self.id(1), expiresAt: 1)
            #expect(first)
            try await Self.eventually("the slot waits on its lane") { batcher.idleCount == 1 }
            lanes.drop(1)
            let second = try await batcher.claim(Self.id(2), expiresAt: 1)
            #expect(second)
        }
        #expect(lanes.statementLanes == [1, 2], "a statement went out on a closed lane")
        // The replacement lane opens without waiting for the left one to be given back.
        #expect(lanes.lifetimes == [1: [.opened(1), .closed(1)], 2: [.opened(2), .closed(2)]])
    }

    @Test("a lane that cannot be opened fails the claims in hand, which are never sent (fail closed); the next claim opens one")
    func unopenableLaneFailsClosed() async throws {
        let table = Table(delay: .milliseconds(1))
        let lanes = Lanes(refusing: 1)
        try await ClaimBatcherTests.withBatcher(table, maximumInFlight: 1, lanes: lanes) { batcher in
            await #expect(throws: Lanes.Unavailable.self) { try await batcher.claim(Self.id(1), expiresAt: 1) }
            let next = try await batcher.claim(Self.id(2), expiresAt: 1)
            #expect(next)
            let retried = try await batcher.claim(Self.id(1), expiresAt: 1)
            #expect(retried, "the refused claim had been recorded")
        }
        #expect(table.sent.flatMap(\.ids) == [Self.id(2), Self.id(1)])
        #expect(lanes.statementLanes.count == 2)
    }
}
