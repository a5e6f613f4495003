import Foundation
import Synchronization

/// A clock the tests move by hand; servers read it through `configuration.clock`.
final class TestClock: Sendable {
    // The current instant; every read and move goes through the mutex.
    private let current: Mutex<Date>

    init(_ start: Date = Fixtures.now) {
        current = Mutex(start)
    }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}
