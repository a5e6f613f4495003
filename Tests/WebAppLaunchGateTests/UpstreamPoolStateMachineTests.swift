import NIOCore
import Testing
@testable import WebAppLaunchGate

/// The upstream pool's decisions, driven event by event: no tasks, no clocks, no sockets.
@Suite("Gate: the upstream pool's state machine")
struct UpstreamPoolStateMachineTests {
    typealias Machine = UpstreamPoolStateMachine
    typealias C = Machine.ConnectionID
    typealias R = Machine.RequestID

    static func request(_ n: Int) -> R { R(value: n) }
    /// When the tests that do not expire anything release a connection.
    static let released = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test("the first request connects; a cleanly released connection is reused by the next, never opened twice")
    func reuse() {
        var pool = Machine(maximumConnections: 2)
        #expect(pool.leaseConnection(Self.request(1)) == .connect(C(value: 0)))
        #expect(pool.connectionEstablished(C(value: 0)) == true)
        #expect(pool.releaseConnection(C(value: 0), reusable: true, at: Self.released) == .none)
        #expect(pool.idle == [C(value: 0)])
        #expect(pool.leaseConnection(Self.request(2)) == .use(C(value: 0)))
        #expect(pool.connections == [C(value: 0): .leased])
    }

    @Test("a connection whose response was not clean is closed, not kept")
    func notReusableIsClosed() {
        var pool = Machine(maximumConnections: 1)
        _ = pool.leaseConnection(Self.request(1))
        _ = pool.connectionEstablished(C(value: 0))
        #expect(pool.releaseConnection(C(value: 0), reusable: false, at: Self.released) == Machine.Action(close: C(value: 0), resume: nil))
        #expect(pool.connections.isEmpty)
        #expect(pool.idle.isEmpty)
        // Room again: the next request opens a new connection.
        #expect(pool.leaseConnection(Self.request(2)) == .connect(C(value: 1)))
    }

    @Test("at the bound, requests wait, first come first served; a released connection goes straight to the longest waiter")
    func boundAndWaiters() {
        var pool = Machine(maximumConnections: 2)
        #expect(pool.leaseConnection(Self.request(1)) == .connect(C(value: 0)))
        #expect(pool.leaseConnection(Self.request(2)) == .connect(C(value: 1)))
        _ = pool.connectionEstablished(C(value: 0))
        _ = pool.connectionEstablished(C(value: 1))
        #expect(pool.leaseConnection(Self.request(3)) == .wait)
        #expect(pool.leaseConnection(Self.request(4)) == .wait)
        #expect(pool.connections.count == 2)
        #expect(pool.releaseConnection(C(value: 1), reusable: true, at: Self.released) == Machine.Action(close: nil, resume: (Self.request(3), .use(C(value: 1)))))
        #expect(pool.connections[C(value: 1)] == .leased, "handed over, never idle in between")
        // A closed one makes room: the next waiter opens a new connection.
        #expect(pool.releaseConnection(C(value: 0), reusable: false, at: Self.released) == Machine.Action(close: C(value: 0), resume: (Self.request(4), .connect(C(value: 2)))))
        #expect(pool.waiting.isEmpty)
        #expect(pool.connections.count == 2)
    }

    @Test("a failed attempt is its requester's failure, not retried; its room goes to the longest waiter")
    func connectFailure() {
        var pool = Machine(maximumConnections: 1)
        #expect(pool.leaseConnection(Self.request(1)) == .connect(C(value: 0)))
        #expect(pool.leaseConnection(Self.request(2)) == .wait)
        #expect(pool.connectionFailed(C(value: 0)) == Machine.Action(close: nil, resume: (Self.request(2), .connect(C(value: 1)))))
        #expect(pool.connections == [C(value: 1): .connecting])
        #expect(pool.connectionFailed(C(value: 1)) == .none)
        #expect(pool.connections.isEmpty)
    }

    @Test("an idle connection the upstream closed is forgotten; one closed while leased is closed on release even when called reusable")
    func upstreamCloses() {
        var pool = Machine(maximumConnections: 2)
        _ = pool.leaseConnection(Self.request(1))
        _ = pool.leaseConnection(Self.request(2))
        _ = pool.connectionEstablished(C(value: 0))
        _ = pool.connectionEstablished(C(value: 1))
        _ = pool.releaseConnection(C(value: 0), reusable: true, at: Self.released)
        #expect(pool.connectionClosed(C(value: 0)) == .none)
        #expect(pool.idle.isEmpty)
        #expect(pool.connections[C(value: 0)] == nil)
        #expect(pool.connectionClosed(C(value: 1)) == .none)
        #expect(pool.releaseConnection(C(value: 1), reusable: true, at: Self.released) == Machine.Action(close: C(value: 1), resume: nil))
        #expect(pool.connections.isEmpty)
        #expect(pool.leaseConnection(Self.request(3)) == .connect(C(value: 2)))
    }

    @Test("a waiter that gives up leaves the queue; one already granted cannot give up")
    func cancelWaiting() {
        var pool = Machine(maximumConnections: 1)
        _ = pool.leaseConnection(Self.request(1))
        _ = pool.connectionEstablished(C(value: 0))
        #expect(pool.leaseConnection(Self.request(2)) == .wait)
        #expect(pool.leaseConnection(Self.request(3)) == .wait)
        #expect(pool.cancelWaiting(Self.request(2)) == true)
        #expect(pool.cancelWaiting(Self.request(2)) == false)
        #expect(pool.releaseConnection(C(value: 0), reusable: true, at: Self.released) == Machine.Action(close: nil, resume: (Self.request(3), .use(C(value: 0)))))
        #expect(pool.cancelWaiting(Self.request(3)) == false)
    }

    @Test("shutdown closes idle and leased connections, fails waiters, refuses new requests and late connections")
    func shutdown() {
        var pool = Machine(maximumConnections: 3)
        _ = pool.leaseConnection(Self.request(1))
        _ = pool.leaseConnection(Self.request(2))
        _ = pool.leaseConnection(Self.request(3))
        _ = pool.connectionEstablished(C(value: 0))
        _ = pool.connectionEstablished(C(value: 1))
        _ = pool.releaseConnection(C(value: 0), reusable: true, at: Self.released)
        _ = pool.leaseConnection(Self.request(4))  // takes C0
        #expect(pool.leaseConnection(Self.request(5)) == .wait)
        let action = pool.shutDown()
        #expect(action == Machine.ShutdownAction(close: [C(value: 0), C(value: 1)], fail: [Self.request(5)]))
        #expect(pool.leaseConnection(Self.request(6)) == .fail)
        #expect(pool.connectionEstablished(C(value: 2)) == false, "an attempt that succeeds after shutdown is not used")
        #expect(pool.releaseConnection(C(value: 0), reusable: true, at: Self.released) == .none)
        #expect(pool.isIdleAfterShutdown)
        #expect(pool.shutDown() == Machine.ShutdownAction(close: [], fail: []))
    }

    @Test("the fast path leases or connects like the waiting one, and changes nothing when it would have to wait")
    func withoutWaiting() {
        var pool = Machine(maximumConnections: 1)
        #expect(pool.leaseConnectionWithoutWaiting() == .connect(C(value: 0)))
        #expect(pool.connectionEstablished(C(value: 0)) == true)
        #expect(pool.leaseConnectionWithoutWaiting() == nil)
        #expect(pool.waiting.isEmpty)
        _ = pool.releaseConnection(C(value: 0), reusable: true, at: Self.released)
        #expect(pool.leaseConnectionWithoutWaiting() == .use(C(value: 0)))
        _ = pool.shutDown()
        #expect(pool.leaseConnectionWithoutWaiting() == .fail)
    }

    @Test("the bound is at least one connection", arguments: [0, -3])
    func atLeastOne(maximum: Int) {
        var pool = Machine(maximumConnections: maximum)
        #expect(pool.maximumConnections == 1)
        #expect(pool.leaseConnection(Self.request(1)) == .connect(C(value: 0)))
        #expect(pool.leaseConnection(Self.request(2)) == .wait)
    }

    @Test("an idle connection on the asker's event loop is preferred, the most recent first; any idle one otherwise, before a new one")
    func loopAffinity() {
        typealias L = Machine.LoopID
        var pool = Machine(maximumConnections: 4)
        for n in 0..<3 {
            #expect(pool.leaseConnection(Self.request(n)) == .connect(C(value: n)))
            #expect(pool.connectionEstablished(C(value: n)) == true)
        }
        // C0 and C2 on loop 1, C1 on loop 2; C2 released last.
        _ = pool.releaseConnection(C(value: 0), reusable: true, loop: L(value: 1), at: Self.released)
        _ = pool.releaseConnection(C(value: 1), reusable: true, loop: L(value: 2), at: Self.released)
        _ = pool.releaseConnection(C(value: 2), reusable: true, loop: L(value: 1), at: Self.released)
        #expect(pool.leaseConnection(Self.request(3), on: L(value: 2)) == .use(C(value: 1)), "loop 2's own, though not the most recent")
        #expect(pool.leaseConnectionWithoutWaiting(on: L(value: 1)) == .use(C(value: 2)), "loop 1's most recent")
        #expect(pool.idle == [C(value: 0)])
        // No idle connection on loop 3: the idle one elsewhere is used; no new connection while one is idle.
        #expect(pool.leaseConnection(Self.request(4), on: L(value: 3)) == .use(C(value: 0)))
        #expect(pool.idle.isEmpty)
        // Nothing idle and room left: a new connection (the runner opens it on the asker's loop).
        #expect(pool.leaseConnection(Self.request(5), on: L(value: 3)) == .connect(C(value: 3)))
        // An idle connection the upstream closed is forgotten with its loop.
        _ = pool.connectionEstablished(C(value: 3))
        _ = pool.releaseConnection(C(value: 3), reusable: true, loop: L(value: 3), at: Self.released)
        _ = pool.connectionClosed(C(value: 3))
        #expect(pool.leaseConnection(Self.request(6), on: L(value: 3)) == .connect(C(value: 4)))
    }

    @Test("the event-loop proxy's lease takes an idle connection only (its loop's first), never connects, and changes nothing without one")
    func idleOnlyLease() {
        typealias L = Machine.LoopID
        var pool = Machine(maximumConnections: 3)
        #expect(pool.leaseIdleConnection(preferring: L(value: 1)) == nil, "room for a new connection is not its to take")
        #expect(pool.connections.isEmpty)
        for n in 0..<2 {
            #expect(pool.leaseConnection(Self.request(n)) == .connect(C(value: n)))
            #expect(pool.connectionEstablished(C(value: n)) == true)
        }
        _ = pool.releaseConnection(C(value: 0), reusable: true, loop: L(value: 1), at: Self.released)
        _ = pool.releaseConnection(C(value: 1), reusable: true, loop: L(value: 2), at: Self.released)
        #expect(pool.leaseIdleConnection(preferring: L(value: 1)) == C(value: 0), "its own loop's, though not the most recent")
        #expect(pool.leaseIdleConnection(preferring: L(value: 1)) == C(value: 1), "then any idle one")
        #expect(pool.leaseIdleConnection(preferring: L(value: 1)) == nil)
        #expect(pool.connections.count == 2 && pool.connections.values.allSatisfy { $0 == .leased })
        _ = pool.releaseConnection(C(value: 0), reusable: true, loop: L(value: 1), at: Self.released)
        _ = pool.shutDown()
        #expect(pool.leaseIdleConnection(preferring: L(value: 1)) == nil, "nothing after shutdown")
    }

    @Test("an idle connection released before the cutoff is expired (closed, room freed); newer ones and leased ones stay")
    func idleExpiry() {
        var pool = Machine(maximumConnections: 3)
        for n in 0..<3 {
            _ = pool.leaseConnection(Self.request(n))
            _ = pool.connectionEstablished(C(value: n))
        }
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        _ = pool.releaseConnection(C(value: 0), reusable: true, at: start)
        _ = pool.releaseConnection(C(value: 1), reusable: true, at: start + .seconds(3))
        // C2 stays leased.
        #expect(pool.expireIdleConnections(releasedBefore: start).isEmpty, "released at the cutoff itself: kept")
        #expect(pool.expireIdleConnections(releasedBefore: start + .seconds(2)) == [C(value: 0)])
        #expect(pool.idle == [C(value: 1)])
        #expect(pool.connections == [C(value: 1): .idle, C(value: 2): .leased])
        // The room C0 left is a new connection once C1 is used.
        #expect(pool.leaseConnection(Self.request(3)) == .use(C(value: 1)))
        #expect(pool.leaseConnection(Self.request(4)) == .connect(C(value: 3)))
        // A leased connection never expires, however old the cutoff makes it.
        _ = pool.releaseConnection(C(value: 1), reusable: true, at: start + .seconds(4))
        #expect(pool.expireIdleConnections(releasedBefore: start + .seconds(3600)) == [C(value: 1)])
        #expect(pool.connections == [C(value: 2): .leased, C(value: 3): .connecting])
    }
}
