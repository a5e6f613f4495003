import Synchronization

/// Whether an instance still takes new work, as `/readyz` reports it: on until shutdown
/// begins, then off for good.
///
/// A load balancer polls `/readyz`; when SIGTERM arrives, ``ReadinessDrainService`` turns
/// this off first, waits for the balancer to notice, and only then lets the server stop
/// accepting and drain its requests. One switch per process, shared by its endpoints.
public final class ReadinessSwitch: Sendable {
    /// Off once shutdown began; never on again.
    private let draining = Atomic<Bool>(false)

    /// Creates a switch that is on.
    public init() {}

    /// Whether the instance takes new work.
    public var isAcceptingWork: Bool { !draining.load(ordering: .acquiring) }

    /// Turns readiness off for the rest of the process's life.
    public func beginDraining() {
        draining.store(true, ordering: .releasing)
    }
}
