import Synchronization
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer

/// A fault injector: a replay store that cannot answer, as a database that is down.
final class FailingReplayStore: ReplayStore {
    // How many claims were attempted, to prove the failure came from the store.
    private let attempts = Mutex(0)

    var claimAttempts: Int { attempts.withLock { $0 } }

    func claim(_ id: ReplayID, until deadline: UInt64, now: UInt64) async throws -> Bool {
        attempts.withLock { $0 += 1 }
        throw ReplayStoreError(.unavailable, "the test store is down")
    }
}
