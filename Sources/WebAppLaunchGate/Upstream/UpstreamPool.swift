import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization
import WebAppLaunchReload

/// The runner of ``UpstreamPoolStateMachine``: holds the state, the open connections and the
/// waiting requests behind one mutex, applies each event, and performs the returned actions
/// (connect, close, resume a waiter) outside the lock.
final class UpstreamPool: Sendable {
    typealias ConnectionID = UpstreamPoolStateMachine.ConnectionID
    typealias RequestID = UpstreamPoolStateMachine.RequestID
    typealias LoopID = UpstreamPoolStateMachine.LoopID

    private struct Waiter: Sendable {
        let continuation: CheckedContinuation<UpstreamPoolStateMachine.Grant, any Error>
        let timer: Scheduled<Void>?
    }

    private struct State {
        var machine: UpstreamPoolStateMachine
        var connections: [ConnectionID: UpstreamConnection] = [:]
        var waiters: [RequestID: Waiter] = [:]
        var nextRequestID = 0
    }

    // Invariant: `machine`, `connections` and `waiters` change together, only under this
    // mutex; a connection is in `connections` exactly while the machine has it leased or idle.
    private let state: Mutex<State>
    private let configuration: UpstreamClient.Configuration
    private let group: any EventLoopGroup
    /// The group's event loops: a request running on one of them prefers connections there.
    private let loops: Set<LoopID>
    /// The TLS context of an `https` upstream's connections (its trusted authorities), read
    /// again on a reload (SIGHUP); `nil` for `http`. A connection opened under an earlier
    /// context is not leased again after a reload: it is closed, and the request takes a
    /// connection authenticated under the authorities in use now. A reload that reads the
    /// same authorities keeps the context, and the connections (``UpstreamTLSContexts``).
    let tls: ReloadableConfiguration<NIOSSLContext>?

    init(configuration: UpstreamClient.Configuration, group: any EventLoopGroup, logger: Logger, metricsFactory: (any MetricsFactory)?) throws {
        self.configuration = configuration
        self.group = group
        self.loops = Set(group.makeIterator().map(Self.loopID))
        self.state = Mutex(State(machine: UpstreamPoolStateMachine(maximumConnections: configuration.maximumConnections)))
        if configuration.upstream.scheme == "https" {
            let contexts = UpstreamTLSContexts(trust: configuration.trust)
            tls = ReloadableConfiguration(
                name: "upstream-trust",
                initial: try contexts.current(),
                logger: logger,
                metricsFactory: metricsFactory
            ) {
                try contexts.current()
            }
        } else {
            tls = nil
        }
    }

    /// A connection leased to one request, and whether it served a request before.
    struct Lease: Sendable {
        let connection: UpstreamConnection
        /// The connection was kept alive after an earlier exchange: the upstream may have
        /// closed it just as this request went out, and ``UpstreamClient`` may then send a
        /// safe request again (never after a new connection's failure).
        let isReused: Bool
    }

    /// A connection for one request: an idle one, a new one, or the next one free before
    /// `deadline` (else ``UpstreamClientError/poolWaitTimeout``). A kept connection
    /// authenticated under authorities a reload replaced is closed and passed over.
    func lease(deadline: NIODeadline) async throws -> Lease {
        while true {
            let lease = try await leaseAny(deadline: deadline)
            guard lease.isReused, isRetired(lease.connection) else { return lease }
            release(lease.connection, reusable: false)
        }
    }

    /// ``lease(deadline:)`` before the check of the connection's trust.
    private func leaseAny(deadline: NIODeadline) async throws -> Lease {
        // Fast path: an idle connection or room for one, without a continuation.
        let loop = currentLoop()
        let (immediate, expired) = state.withLock { state -> ((UpstreamPoolStateMachine.LeaseAction, UpstreamConnection?)?, [UpstreamConnection]) in
            let expired = expireIdleConnections(&state)
            guard let action = state.machine.leaseConnectionWithoutWaiting(on: loop.map(Self.loopID)) else { return (nil, expired) }
            if case .use(let id) = action { return ((action, state.connections[id]), expired) }
            return ((action, nil), expired)
        }
        for connection in expired { connection.close(UpstreamClientError.connectionClosed) }
        if case let (action, connection)? = immediate {
            switch action {
            case .use:
                guard let connection else { throw UpstreamClientError.shutDown }
                return Lease(connection: connection, isReused: true)
            case .connect(let id): return Lease(connection: try await connect(id, on: loop), isReused: false)
            case .fail, .wait: throw UpstreamClientError.shutDown
            }
        }
        let requestID = state.withLock { state in
            state.nextRequestID += 1
            return RequestID(value: state.nextRequestID)
        }
        let grant = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<UpstreamPoolStateMachine.Grant, any Error>) in
                let (action, expired) = state.withLock { state in
                    let expired = expireIdleConnections(&state)
                    let action = state.machine.leaseConnection(requestID, on: loop.map(Self.loopID))
                    if action == .wait {
                        let timer = group.any().scheduleTask(deadline: deadline) { [self] in
                            giveUp(requestID, UpstreamClientError.poolWaitTimeout)
                        }
                        state.waiters[requestID] = Waiter(continuation: continuation, timer: timer)
                    }
                    return (action, expired)
                }
                for connection in expired { connection.close(UpstreamClientError.connectionClosed) }
                switch action {
                case .use(let id): continuation.resume(returning: .use(id))
                case .connect(let id): continuation.resume(returning: .connect(id))
                case .fail: continuation.resume(throwing: UpstreamClientError.shutDown)
                case .wait: break
                }
            }
        } onCancel: {
            giveUp(requestID, CancellationError())
        }
        switch grant {
        case .use(let id):
            guard let connection = state.withLock({ $0.connections[id] }) else { throw UpstreamClientError.shutDown }
            return Lease(connection: connection, isReused: true)
        case .connect(let id):
            return Lease(connection: try await connect(id, on: currentLoop()), isReused: false)
        }
    }

    /// An idle connection, leased now, for a request that runs on `loop`; `nil` when there is
    /// none (nothing is opened and nothing waits). One on that loop is preferred: the whole
    /// exchange then stays on the loop's thread.
    func leaseIdle(preferring loop: any EventLoop) -> UpstreamConnection? {
        while true {
            let (connection, expired) = state.withLock { state -> (UpstreamConnection?, [UpstreamConnection]) in
                let expired = expireIdleConnections(&state)
                guard let id = state.machine.leaseIdleConnection(preferring: Self.loopID(loop)) else { return (nil, expired) }
                return (state.connections[id], expired)
            }
            for connection in expired { connection.close(UpstreamClientError.connectionClosed) }
            // Bounded: each pass closes one connection opened before the reload, and none opens here.
            guard let connection, isRetired(connection) else { return connection }
            release(connection, reusable: false)
        }
    }

    /// Whether a connection was authenticated under trusted authorities a reload has since
    /// replaced (always `false` for `http`).
    private func isRetired(_ connection: UpstreamConnection) -> Bool {
        guard let tls else { return false }
        return connection.tlsContext !== tls.current
    }

    /// Gives a leased connection back: kept for the next request (or handed to the longest
    /// waiter) when its exchange ended cleanly, closed otherwise.
    /// - Parameters:
    ///   - connection: The connection.
    ///   - reusable: What its handler said at the end of the response; `false` for an
    ///     exchange that did not end (the connection is closed).
    func release(_ connection: UpstreamConnection, reusable: Bool) {
        if !reusable { connection.close(UpstreamClientError.connectionClosed) }
        let (close, resume) = state.withLock { state in
            apply(state.machine.releaseConnection(connection.id, reusable: reusable, loop: Self.loopID(connection.channel.eventLoop), at: .now()), to: &state)
        }
        close?.close(UpstreamClientError.connectionClosed)
        if case let (waiter, grant)? = resume {
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: grant)
        }
    }

    /// Closes every connection, fails every waiter, and refuses every later request; returns
    /// once the connections are closed.
    func shutDown() async {
        let (connections, waiters) = state.withLock { state -> ([UpstreamConnection], [Waiter]) in
            let action = state.machine.shutDown()
            let connections = action.close.compactMap { state.connections.removeValue(forKey: $0) }
            let waiters = action.fail.compactMap { state.waiters.removeValue(forKey: $0) }
            return (connections, waiters)
        }
        for waiter in waiters {
            waiter.timer?.cancel()
            waiter.continuation.resume(throwing: UpstreamClientError.shutDown)
        }
        for connection in connections {
            connection.close(UpstreamClientError.shutDown)
        }
        for connection in connections {
            try? await connection.channel.closeFuture.get()
        }
    }

    /// How many connections are open or being opened (for tests).
    var openConnections: Int { state.withLock { $0.machine.connections.count } }

    // MARK: Internals

    /// The calling thread's event loop, when it is one of the pool's (a request's task runs on
    /// the event loop that read it when NIO is the global executor, as `webapp-launch` sets).
    private func currentLoop() -> (any EventLoop)? {
        guard let loop = MultiThreadedEventLoopGroup.currentEventLoop, loops.contains(Self.loopID(loop)) else { return nil }
        return loop
    }

    private static func loopID(_ loop: any EventLoop) -> LoopID {
        LoopID(value: UInt(bitPattern: ObjectIdentifier(loop)))
    }

    /// Opens connection `id`, on `loop` when given (the requester's own), else on any of the group's.
    private func connect(_ id: ConnectionID, on loop: (any EventLoop)?) async throws -> UpstreamConnection {
        let upstream = configuration.upstream
        let readTimeout = TimeAmount(configuration.readTimeout)
        let connectTimeout = TimeAmount(configuration.connectTimeout)
        let handshakes = TLSHandshakeWaiter.Registry()
        // Taken once: the handshake and the connection's later reuse are judged by this context.
        let tls = self.tls?.current
        let address = try? SocketAddress(ipAddress: upstream.host, port: upstream.port)
        // TLS names the server only by name (SNI and certificate check); an address is checked as an address.
        let serverHostname = address == nil ? upstream.host : nil
        do {
            let eventLoop = loop ?? group.any()
            let bootstrap = ClientBootstrap(group: eventLoop)
                .connectTimeout(connectTimeout)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        if let tls {
                            try pipeline.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverHostname))
                            try handshakes.addWaiter(to: channel, timeout: connectTimeout)
                        }
                        // Framing headers are set by the gate (UpstreamClient.frame), never guessed.
                        var encoder = HTTPRequestEncoder.Configuration()
                        encoder.automaticallySetFramingHeaders = false
                        try pipeline.addHTTPClientHandlers(
                            position: .last, leftOverBytesStrategy: .dropBytes, enableOutboundHeaderValidation: true,
                            encoderConfiguration: encoder, decoderLimitConfiguration: .init(), withClientUpgrade: nil
                        )
                        try pipeline.addHandler(UpstreamConnectionHandler(readTimeout: readTimeout))
                    }
                }
            // An address is used as it is; a name is resolved (all its addresses tried once each).
            let connecting = address.map { bootstrap.connect(to: $0) }
                ?? bootstrap.connect(host: upstream.host, port: upstream.port)
            let channel = try await connecting.get()
            do {
                // An https connection is a request's only once the upstream is authenticated.
                try await handshakes.handshake(of: channel)?.get()
            } catch {
                channel.close(promise: nil)
                throw error
            }
            let handler = try await channel.eventLoop.submit {
                NIOLoopBound(try channel.pipeline.syncOperations.handler(type: UpstreamConnectionHandler.self), eventLoop: channel.eventLoop)
            }.get()
            let connection = UpstreamConnection(id: id, channel: channel, handler: handler, tlsContext: tls)
            let usable = state.withLock { state in
                guard state.machine.connectionEstablished(id) else { return false }
                state.connections[id] = connection
                return true
            }
            guard usable else {
                channel.close(promise: nil)
                throw UpstreamClientError.shutDown
            }
            channel.closeFuture.whenComplete { [self] _ in connectionClosed(id) }
            return connection
        } catch {
            let resume = state.withLock { state in apply(state.machine.connectionFailed(id), to: &state).1 }
            if case let (waiter, grant)? = resume {
                waiter.timer?.cancel()
                waiter.continuation.resume(returning: grant)
            }
            if case ChannelError.connectTimeout = error { throw UpstreamClientError.connectTimeout }
            throw error
        }
    }

    /// Forgets the connections idle longer than the idle timeout, for the caller to close
    /// outside the lock.
    private func expireIdleConnections(_ state: inout State) -> [UpstreamConnection] {
        state.machine.expireIdleConnections(releasedBefore: .now() - TimeAmount(configuration.idleTimeout))
            .compactMap { state.connections.removeValue(forKey: $0) }
    }

    private func connectionClosed(_ id: ConnectionID) {
        let resume = state.withLock { state in
            let action = state.machine.connectionClosed(id)
            if state.machine.connections[id] == nil { state.connections[id] = nil }
            return apply(action, to: &state).1
        }
        if case let (waiter, grant)? = resume {
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: grant)
        }
    }

    private func giveUp(_ request: RequestID, _ error: any Error) {
        let waiter = state.withLock { state -> Waiter? in
            guard state.machine.cancelWaiting(request) else { return nil }
            return state.waiters.removeValue(forKey: request)
        }
        guard let waiter else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume(throwing: error)
    }

    /// The machine's action as the runner's: the connection to close (removed from the open
    /// ones) and the waiter to resume (removed from the waiting ones).
    private func apply(
        _ action: UpstreamPoolStateMachine.Action,
        to state: inout State
    ) -> (UpstreamConnection?, (Waiter, UpstreamPoolStateMachine.Grant)?) {
        let close = action.close.flatMap { state.connections.removeValue(forKey: $0) }
        var resume: (Waiter, UpstreamPoolStateMachine.Grant)?
        if case let (request, grant)? = action.resume, let waiter = state.waiters.removeValue(forKey: request) {
            resume = (waiter, grant)
        }
        return (close, resume)
    }
}
