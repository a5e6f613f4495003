/// A counting semaphore for tasks: ``acquire()`` suspends (it never blocks a thread) until
/// one of `count` slots is free.
///
/// The suites run in parallel on a two-core machine; work that takes a core for a while
/// (a program run to completion, a Python provider starting) takes a slot, so dozens of
/// such programs never start at once and starve the in-process servers and deadline
/// watchers the other suites time.
public actor Slots {
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Creates `count` free slots.
    public init(count: Int) { available = count }

    /// Takes a slot, waiting for one to be freed if none is.
    public func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Frees a slot, handing it to the longest waiter if there is one.
    public func release() {
        if waiting.isEmpty {
            available += 1
        } else {
            waiting.removeFirst().resume()
        }
    }

}
