import NIOCore

/// The decisions of the gate's keep-alive pool to its one upstream origin, as a value with no
/// locks, tasks, channels or clocks: events in, actions out (tested synchronously).
///
/// - At most ``maximumConnections`` connections exist at once (connecting, idle or leased).
/// - A connection serves one request at a time: it is leased, then released; it goes back to
///   the idle set only when its holder says it is reusable (a complete, well-framed response)
///   and the upstream has not closed it meanwhile; otherwise it is closed.
/// - A request that finds no idle connection and no room waits, first come first served; a
///   released connection goes to the longest waiter directly, and room freed by a closed one
///   lets the longest waiter connect. A request connects at most once: a failed attempt is
///   its own failure (502 at once), never retried for it.
/// - An idle connection on the asker's event loop is preferred (``LoopID``): its reads,
///   writes and completions then stay on the thread that runs the request, with no hop to
///   another thread and back per request. Any idle connection comes next, then a new one.
/// - An idle connection released before a cutoff the runner gives
///   (``expireIdleConnections(releasedBefore:)``, its idle timeout ago) is closed, not reused:
///   the gate ends a kept-alive connection before a typical app server's idle timeout does,
///   so a request (a POST too, which is never sent twice) does not meet the upstream closing
///   it as the request goes out.
/// - After ``shutDown()`` nothing is leased again: idle and leased connections are closed,
///   waiters fail, and a connection whose attempt succeeds afterwards is closed at once.
struct UpstreamPoolStateMachine: Sendable {
    /// A connection's identity within the pool.
    struct ConnectionID: Hashable, Sendable, Comparable {
        let value: Int
        static func < (lhs: Self, rhs: Self) -> Bool { lhs.value < rhs.value }
    }

    /// An event loop's identity, as the runner names it: a connection's channel runs on one.
    struct LoopID: Hashable, Sendable {
        let value: UInt
    }

    /// A request's identity while it waits for a connection.
    struct RequestID: Hashable, Sendable {
        let value: Int
    }

    /// What a request asking for a connection is to do.
    enum LeaseAction: Equatable, Sendable {
        /// Use this idle connection (now leased to it).
        case use(ConnectionID)
        /// Open this new connection and use it.
        case connect(ConnectionID)
        /// Wait: a ``ReleaseAction`` or ``cancelWaiting(_:)`` resumes it later.
        case wait
        /// Fail: the pool is shut down.
        case fail
    }

    /// What resumes a waiting request.
    enum Grant: Equatable, Sendable {
        /// Use this connection (leased to it).
        case use(ConnectionID)
        /// Open this new connection and use it.
        case connect(ConnectionID)
    }

    /// What the runner does after an event: at most one connection to close and one waiter to
    /// resume.
    struct Action: Equatable, Sendable {
        var close: ConnectionID?
        var resume: (RequestID, Grant)?

        static let none = Action(close: nil, resume: nil)

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.close == rhs.close && lhs.resume?.0 == rhs.resume?.0 && lhs.resume?.1 == rhs.resume?.1
        }
    }

    /// What the runner does on shutdown.
    struct ShutdownAction: Equatable, Sendable {
        /// Connections to close (idle and leased), in id order.
        var close: [ConnectionID]
        /// Waiting requests to fail, in arrival order.
        var fail: [RequestID]
    }

    enum ConnectionState: Equatable, Sendable {
        case connecting
        case idle
        case leased
        /// Leased, and the upstream closed it meanwhile: closed, never reused, on release.
        case leasedButClosed
    }

    /// The most connections open at once (at least 1).
    let maximumConnections: Int
    private(set) var connections: [ConnectionID: ConnectionState] = [:]
    /// Idle connections with their event loops and release times, in release order: the most
    /// recently used last (reused first: warmest, least likely to have been closed by the
    /// upstream's keep-alive timeout), the oldest first (expired first).
    private var idleConnections: [(connection: ConnectionID, loop: LoopID?, since: NIODeadline)] = []
    /// Idle connections, the most recently used last.
    var idle: [ConnectionID] { idleConnections.map(\.connection) }
    private(set) var waiting = CircularBuffer<RequestID>()
    private(set) var isShutDown = false
    private var nextConnectionID = 0

    init(maximumConnections: Int) {
        self.maximumConnections = max(1, maximumConnections)
    }

    /// A request wants a connection.
    /// - Parameters:
    ///   - request: The request.
    ///   - loop: The event loop it runs on, if known: an idle connection there is preferred.
    mutating func leaseConnection(_ request: RequestID, on loop: LoopID? = nil) -> LeaseAction {
        if let action = leaseConnectionWithoutWaiting(on: loop) { return action }
        waiting.append(request)
        return .wait
    }

    /// A request wants a connection now: `nil` (and nothing changed) when it would have to
    /// wait. The runner's fast path, with no continuation to register. It cannot overtake a
    /// waiter: while requests wait, no connection is idle and there is no room.
    /// - Parameter loop: The event loop the request runs on, if known: an idle connection
    ///   there is preferred, the most recently used first.
    mutating func leaseConnectionWithoutWaiting(on loop: LoopID? = nil) -> LeaseAction? {
        guard !isShutDown else { return .fail }
        if let connection = leaseIdleConnection(preferring: loop) { return .use(connection) }
        if connections.count < maximumConnections {
            return .connect(newConnection())
        }
        return nil
    }

    /// An idle connection for a request that runs on `loop` (one on that loop preferred, the
    /// most recently used first), or `nil` (and nothing changed): the event-loop proxy's lease,
    /// which never connects or waits (its request goes to the task-based proxy instead, which
    /// may). It cannot overtake a waiter either: while requests wait, no connection is idle.
    mutating func leaseIdleConnection(preferring loop: LoopID?) -> ConnectionID? {
        let onLoop = loop.flatMap { loop in idleConnections.lastIndex { $0.loop == loop } }
        guard !isShutDown, let index = onLoop ?? idleConnections.indices.last else { return nil }
        let connection = idleConnections.remove(at: index).connection
        connections[connection] = .leased
        return connection
    }

    /// A connection attempt succeeded: its requester uses it, unless the pool shut down
    /// meanwhile (then the returned action closes it and the requester fails).
    /// - Returns: Whether the requester may use it.
    mutating func connectionEstablished(_ connection: ConnectionID) -> Bool {
        guard connections[connection] == .connecting else { return false }
        if isShutDown {
            connections[connection] = nil
            return false
        }
        connections[connection] = .leased
        return true
    }

    /// A connection attempt failed (its requester fails): the room goes to the longest waiter.
    mutating func connectionFailed(_ connection: ConnectionID) -> Action {
        guard connections[connection] == .connecting else { return .none }
        connections[connection] = nil
        return Action(close: nil, resume: admitWaiter())
    }

    /// The holder of a leased connection is done with it.
    /// - Parameters:
    ///   - connection: The connection.
    ///   - reusable: Whether its last response was complete and well framed, with nothing
    ///     left over, on a connection both sides keep alive.
    ///   - loop: The event loop its channel runs on, if known (kept while it is idle).
    ///   - now: When it was released: kept while it is idle, for ``expireIdleConnections(releasedBefore:)``.
    mutating func releaseConnection(_ connection: ConnectionID, reusable: Bool, loop: LoopID? = nil, at now: NIODeadline) -> Action {
        guard let state = connections[connection], state == .leased || state == .leasedButClosed else { return .none }
        if reusable, state == .leased, !isShutDown {
            if let next = waiting.popFirst() {
                return Action(close: nil, resume: (next, .use(connection)))
            }
            connections[connection] = .idle
            idleConnections.append((connection, loop, now))
            return .none
        }
        connections[connection] = nil
        return Action(close: connection, resume: isShutDown ? nil : admitWaiter())
    }

    /// The upstream (or the network) closed a connection.
    mutating func connectionClosed(_ connection: ConnectionID) -> Action {
        switch connections[connection] {
        case .idle?:
            connections[connection] = nil
            idleConnections.removeAll { $0.connection == connection }
            return Action(close: nil, resume: isShutDown ? nil : admitWaiter())
        case .leased?:
            connections[connection] = .leasedButClosed
            return .none
        case .connecting?, .leasedButClosed?, nil:
            return .none
        }
    }

    /// Idle connections released before `cutoff` are closed: forgotten here, returned for the
    /// runner to close, oldest first. No request waits while a connection is idle, so none is
    /// admitted into the room they leave.
    ///
    /// Idle connections are kept in release order, so the expired ones are a prefix: a lease
    /// pays for the connections it expires, not for every idle one.
    mutating func expireIdleConnections(releasedBefore cutoff: NIODeadline) -> [ConnectionID] {
        let count = idleConnections.prefix { $0.since < cutoff }.count
        guard count > 0 else { return [] }
        let expired = idleConnections.prefix(count).map(\.connection)
        idleConnections.removeFirst(count)
        for connection in expired { connections[connection] = nil }
        return expired
    }

    /// A waiting request gave up (its deadline passed, or it was cancelled).
    /// - Returns: Whether it was still waiting (then the runner fails it); `false` when it was
    ///   resumed already and holds a grant.
    mutating func cancelWaiting(_ request: RequestID) -> Bool {
        guard let index = waiting.firstIndex(of: request) else { return false }
        waiting.remove(at: index)
        return true
    }

    /// The gate stops.
    mutating func shutDown() -> ShutdownAction {
        guard !isShutDown else { return ShutdownAction(close: [], fail: []) }
        isShutDown = true
        let close = connections.filter { $0.value != .connecting }.keys.sorted()
        for connection in close { connections[connection] = nil }
        idleConnections = []
        let fail = Array(waiting)
        waiting.removeAll()
        return ShutdownAction(close: close, fail: fail)
    }

    /// Whether nothing is open or connecting any more.
    var isIdleAfterShutdown: Bool { isShutDown && connections.isEmpty }

    private mutating func newConnection() -> ConnectionID {
        let connection = ConnectionID(value: nextConnectionID)
        nextConnectionID += 1
        connections[connection] = .connecting
        return connection
    }

    /// Room for one more connection: the longest waiter opens it.
    private mutating func admitWaiter() -> (RequestID, Grant)? {
        guard connections.count < maximumConnections, let next = waiting.popFirst() else { return nil }
        return (next, .connect(newConnection()))
    }
}
