/// The decisions of a configuration reload, as a value: whether a request starts a load, and
/// whether a finished load must be followed by another one.
///
/// Reload requests (SIGHUP, the interval timer, the library API) can arrive while a load is
/// running. They must neither run two loads at once (two swaps racing, the older file winning)
/// nor be lost (the operator's second edit never read). So a request during a load is
/// remembered as one more load, run after the current one; any number of them collapse into
/// that one. Nothing here awaits, locks or reads a file: ``ReloadableConfiguration`` holds it
/// behind its lock and performs what it returns.
public struct ReloadStateMachine: Sendable, Equatable {
    enum State: Sendable, Equatable {
        case idle
        case loading(requestedAgain: Bool)
    }

    /// What to do after a reload was requested.
    public enum RequestAction: Sendable, Equatable {
        /// Start a load now.
        case startLoading
        /// A load is running; another one will follow it.
        case coalesced
    }

    /// What to do once a load finished (swapped in or refused).
    public enum FinishAction: Sendable, Equatable {
        /// A request arrived during the load: load again, it may have seen an older file.
        case loadAgain
        /// Nothing more to do.
        case done
    }

    private var state: State = .idle
    /// How many configurations were swapped in after the first (the generation of the current one).
    public private(set) var generation: UInt64 = 0

    /// Creates an idle machine at generation 0.
    public init() {}

    /// Whether a load is running.
    public var isLoading: Bool { state != .idle }

    /// A reload was requested.
    /// - Returns: Whether to start loading.
    public mutating func reloadRequested() -> RequestAction {
        switch state {
        case .idle:
            state = .loading(requestedAgain: false)
            return .startLoading
        case .loading:
            state = .loading(requestedAgain: true)
            return .coalesced
        }
    }

    /// The running load finished.
    /// - Parameter swapped: Whether its configuration was valid and swapped in.
    /// - Returns: Whether to load again.
    public mutating func loadFinished(swapped: Bool) -> FinishAction {
        if swapped { generation &+= 1 }
        switch state {
        case .idle:
            preconditionFailure("a load finished that never started")
        case .loading(let again):
            if again {
                state = .loading(requestedAgain: false)
                return .loadAgain
            }
            state = .idle
            return .done
        }
    }
}
