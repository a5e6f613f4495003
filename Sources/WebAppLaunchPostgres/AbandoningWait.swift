import Synchronization
import WebAppLaunchMiddleware

/// Waits for `operation`, but never past the caller's cancellation or `timeout`: whichever
/// comes first ends the wait at once, calls `abandon` (for the store: closing the
/// connection, which fails a query still in flight) and leaves the operation behind in its
/// own task, cancelled and never awaited.
///
/// Why not a task group, or a cancellation handler around the operation: both wait for the
/// operation to end, and a dependency may never end it. postgres-nio writes each query to
/// its channel with `promise: nil`; when the channel has already closed, the write fails
/// silently, the query's own promise is never completed, and whoever awaits it waits forever
/// (vapor/postgres-nio: a fix was merged and reverted; the issue is open as of 1.33.2). So no
/// cancellation or deadline path in this module waits for a dependency's future.
/// - Parameters:
///   - timeout: The longest wait (`nil`: until cancelled).
///   - abandon: Called once when the wait ends before the operation (not when it finishes).
///   - operation: The work, run in a task of its own.
/// - Returns: The operation's value.
/// - Throws: The operation's error; `CancellationError` when the caller was cancelled first;
///   ``ReplayStoreError/Code/unavailable`` when the timeout came first.
func waitAbandoningOnCancel<T: Sendable>(
    timeout: Duration? = nil,
    abandon: @escaping @Sendable () -> Void,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let answer = OneShotAnswer<T>()
    let work = Task {
        do { answer.finish(.success(try await operation())) } catch { answer.finish(.failure(error)) }
    }
    let giveUp: @Sendable (any Error) -> Void = { error in
        if answer.finish(.failure(error)) {
            work.cancel()
            abandon()
        }
    }
    let timer = timeout.map { timeout in
        Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            giveUp(ReplayStoreError(.unavailable, "PostgreSQL did not answer within \(timeout)"))
        }
    }
    defer { timer?.cancel() }
    return try await withTaskCancellationHandler {
        try await answer.value()
    } onCancel: {
        giveUp(CancellationError())
    }
}

/// A result given once, by whichever of several parties comes first, to one waiter.
final class OneShotAnswer<T: Sendable>: Sendable {
    private enum State {
        case pending
        case waiting(CheckedContinuation<T, any Error>)
        case answered(Result<T, any Error>)
        case delivered
    }

    // Invariant: the waiter's continuation is resumed exactly once, by `finish` or `value`.
    private let state = Mutex(State.pending)

    /// Gives the answer unless one was given; returns whether this call gave it.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (given, waiter): (Bool, CheckedContinuation<T, any Error>?) = state.withLock { state in
            switch state {
            case .pending:
                state = .answered(result)
                return (true, nil)
            case .waiting(let continuation):
                state = .delivered
                return (true, continuation)
            case .answered, .delivered:
                return (false, nil)
            }
        }
        waiter?.resume(with: result)
        return given
    }

    /// Waits for the answer (once).
    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<T, any Error>? = state.withLock { state in
                if case .answered(let result) = state {
                    state = .delivered
                    return result
                }
                state = .waiting(continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
