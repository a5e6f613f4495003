import Synchronization

/// A bound on the identity-provider requests the launcher has in flight at once.
///
/// The per-subject rate limit can only apply once the provider has named the subject, so a
/// client without any valid token could otherwise make the launcher ask the provider as fast
/// as it can send garbage. With this bound, requests beyond it are answered at once as
/// "provider unavailable" (503, nothing minted, the provider not asked): the launcher sheds
/// load instead of passing it on, and never waits in an unbounded queue.
public final class ProviderRequestLimit: Sendable {
    /// Requests allowed in flight at once.
    public let maximum: Int
    // Requests in flight now; taken and returned in one critical section each.
    private let inFlight = Mutex(0)

    /// Creates a limit.
    /// - Parameter maximum: Requests in flight at once (at least 1).
    public init(maximum: Int = 256) {
        self.maximum = max(1, maximum)
    }

    /// Requests in flight now, for tests and metrics.
    public var current: Int { inFlight.withLock { $0 } }

    /// Runs `body` if a slot is free, and frees it afterwards whatever happens.
    /// - Parameters:
    ///   - body: The provider request.
    ///   - refused: What to throw when every slot is taken.
    /// - Returns: What `body` returned.
    func withSlot<Result, Failure: Error>(
        refused: @autoclosure () -> Failure,
        _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        let limit = maximum
        let admitted = inFlight.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard admitted else { throw refused() }
        defer { inFlight.withLock { $0 -= 1 } }
        return try await body()
    }
}
