import Synchronization
import WebAppLaunch
@testable import WebAppLaunchPostgres

/// Lanes for a batcher under test, standing in for pooled connections: numbered in the order
/// they open, each opening and closing logged, each statement recorded with its lane.
final class Lanes: Sendable {
    enum Event: Equatable, Sendable {
        case opened(Int)
        case closed(Int)
    }

    struct Unavailable: Error, Equatable {}

    private struct State {
        var opened = 0
        var refusalsLeft: Int
        var events: [Event] = []
        var dropped: Set<Int> = []
        var statements: [(lane: Int, ids: [ReplayID])] = []
    }

    private let state: Mutex<State>

    /// - Parameter refusing: How many attempts to open a lane fail (with ``Unavailable``)
    ///   before one succeeds, as a pool that cannot connect yet.
    init(refusing: Int = 0) {
        state = Mutex(State(refusalsLeft: refusing))
    }

    /// Opens a lane for `use`, closing it when `use` returns.
    func open(_ use: (Int) async -> Void) async throws {
        let lane = try state.withLock { state in
            guard state.refusalsLeft == 0 else {
                state.refusalsLeft -= 1
                throw Unavailable()
            }
            state.opened += 1
            state.events.append(.opened(state.opened))
            return state.opened
        }
        await use(lane)
        state.withLock { $0.events.append(.closed(lane)) }
    }

    /// Closes a lane from the other side, as a database that ends a connection.
    func drop(_ lane: Int) {
        state.withLock { _ = $0.dropped.insert(lane) }
    }

    func isOpen(_ lane: Int) -> Bool { state.withLock { !$0.dropped.contains(lane) } }

    func record(_ batch: ClaimBatch, on lane: Int) {
        state.withLock { $0.statements.append((lane, batch.ids)) }
    }

    var events: [Event] { state.withLock { $0.events } }
    /// Each lane's own events, in order (lanes live side by side: a replacement may open
    /// before the lane it replaces is given back).
    var lifetimes: [Int: [Event]] {
        Dictionary(grouping: events) { event in
            switch event {
            case .opened(let lane), .closed(let lane): lane
            }
        }
    }
    /// The lane of each statement, in the order they were sent.
    var statementLanes: [Int] { state.withLock { $0.statements.map(\.lane) } }
}
