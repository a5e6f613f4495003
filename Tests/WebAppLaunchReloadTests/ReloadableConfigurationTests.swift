import Dispatch
import Foundation
import Logging
import Metrics
import Synchronization
import ServiceLifecycle
import Testing
import WebAppLaunchReload

/// The runner: a valid configuration is swapped in, a refused one keeps the old, a snapshot
/// taken before a reload stays what it was, and every outcome is counted.
@Suite("A reloadable configuration swaps in valid loads only, and counts each outcome")
struct ReloadableConfigurationTests {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "keyring /etc/k.json: the file is readable by group or others\nsecond line" }
    }

    /// What the loader returns next: a value, or a refusal.
    final class Script: Sendable {
        let next = Mutex<Result<Int, Refused>>(.success(1))
    }

    @Test("a valid load is swapped in; a refused load keeps the old value, with one line and a counter")
    func swapsOrKeeps() async {
        let script = Script()
        let metrics = CountingFactory()
        let configuration = ReloadableConfiguration(name: "keyring", initial: 0, metricsFactory: metrics) {
            try script.next.withLock { $0 }.get()
        }
        let snapshot = configuration.current
        #expect(await configuration.reload() == .reloaded(generation: 1))
        #expect(configuration.current == 1)
        #expect(snapshot == 0)  // a request that took the old value keeps it
        script.next.withLock { $0 = .failure(Refused()) }
        let kept = await configuration.reload()
        guard case .kept(let reason) = kept else {
            Issue.record("expected kept, got \(kept)")
            return
        }
        #expect(!reason.contains("\n"))
        #expect(reason.contains("readable by group or others"))
        #expect(configuration.current == 1)
        #expect(configuration.generation == 1)
        #expect(metrics.value(ReloadableConfiguration<Int>.metricLabel, ["config": "keyring", "result": "reloaded"]) == 1)
        #expect(metrics.value(ReloadableConfiguration<Int>.metricLabel, ["config": "keyring", "result": "kept"]) == 1)
    }

    @Test("reloads requested while one loads run one more load after it, never two at once")
    func coalescesConcurrentReloads() async {
        let counters = Counters()
        let configuration = ReloadableConfiguration(name: "registry", initial: 0) {
            if counters.running.add(1, ordering: .sequentiallyConsistent).newValue > 1 { counters.overlapped.store(true, ordering: .sequentiallyConsistent) }
            let load = counters.loads.add(1, ordering: .sequentiallyConsistent).newValue
            if load == 1 {
                // The first load waits (bounded) until the other seven requests were coalesced.
                for _ in 0..<5000 where counters.coalesced.load(ordering: .sequentiallyConsistent) < 7 {
                    try? await Task.sleep(for: .milliseconds(1))
                }
            }
            counters.running.subtract(1, ordering: .sequentiallyConsistent)
            return load
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await configuration.reload() }
            // The first request must be the one that loads.
            for _ in 0..<5000 where counters.loads.load(ordering: .sequentiallyConsistent) == 0 {
                try? await Task.sleep(for: .milliseconds(1))
            }
            for _ in 0..<7 {
                group.addTask {
                    if await configuration.reload() == .coalesced { counters.coalesced.add(1, ordering: .sequentiallyConsistent) }
                }
            }
        }
        let coalescedCount = counters.coalesced.load(ordering: .sequentiallyConsistent)
        let didOverlap = counters.overlapped.load(ordering: .sequentiallyConsistent)
        let loadCount = counters.loads.load(ordering: .sequentiallyConsistent)
        #expect(coalescedCount == 7)
        #expect(!didOverlap)
        #expect(loadCount == 2)  // the first, and one for all seven
        #expect(configuration.current == 2)
        #expect(configuration.generation == 2)
    }

    @Test("withCurrent hands over the configuration in use when it is called, and a reload may swap while its body runs (the lock is not held)")
    func withCurrentKeepsItsSnapshot() async throws {
        let configuration = ReloadableConfiguration(name: "registry", initial: 7) { 8 }
        let entered = DispatchSemaphore(value: 0)
        let swapped = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let seen = Mutex<[Int]>([])
        // The body blocks a thread of its own, never one of the pool the reload runs on.
        Thread {
            configuration.withCurrent { value in
                entered.signal()
                let reloaded = swapped.wait(timeout: .now() + 60) == .success
                seen.withLock { $0 = [value, reloaded ? configuration.current : -1] }
            }
            done.signal()
        }.start()
        try await Self.wait(for: entered)
        // Swapping takes the lock: it finishes only if the body does not hold it.
        #expect(await configuration.reload() == .reloaded(generation: 1))
        swapped.signal()
        try await Self.wait(for: done)
        #expect(seen.withLock { $0 } == [7, 8], "the body keeps the value it began with; the reload swapped meanwhile")
        #expect(configuration.withCurrent { $0 } == 8)
    }

    /// Waits for a semaphore without blocking a thread of the pool, 60 s at most (the whole
    /// suite in parallel can keep the pool busy for seconds).
    static func wait(for semaphore: DispatchSemaphore) async throws {
        for _ in 0..<6000 {
            if semaphore.wait(timeout: .now()) == .success { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("timed out after 60 s")
    }

    @Test("a fixed configuration keeps itself on reload")
    func fixedKeeps() async {
        let configuration = ReloadableConfiguration.fixed("value")
        #expect(!(await configuration.reload()).isReloaded)
        #expect(configuration.current == "value")
    }
}

/// Counters shared by a test's concurrent tasks.
final class Counters: Sendable {
    let loads = Atomic<Int>(0)
    let running = Atomic<Int>(0)
    let overlapped = Atomic<Bool>(false)
    let coalesced = Atomic<Int>(0)
}

/// A swift-metrics factory that only counts, for assertions.
final class CountingFactory: MetricsFactory, Sendable {
    final class Handler: CounterHandler, Sendable {
        let count = Atomic<Int64>(0)
        func increment(by amount: Int64) { count.add(amount, ordering: .relaxed) }
        func reset() { count.store(0, ordering: .relaxed) }
    }

    private let handlers = Mutex<[String: Handler]>([:])

    static func key(_ label: String, _ dimensions: [String: String]) -> String {
        ([label] + dimensions.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: ",")
    }

    func value(_ label: String, _ dimensions: [String: String]) -> Int64 {
        handlers.withLock { $0[Self.key(label, dimensions)]?.count.load(ordering: .relaxed) ?? 0 }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        let key = Self.key(label, Dictionary(dimensions, uniquingKeysWith: { $1 }))
        return handlers.withLock { handlers in
            if let handler = handlers[key] { return handler }
            let handler = Handler()
            handlers[key] = handler
            return handler
        }
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { NOOPMetricsHandler.instance }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { NOOPMetricsHandler.instance }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

/// The service that reloads on an interval (a registry from a CMS), run in a service group.
@Suite("The reload service reloads on its interval and stops on graceful shutdown")
struct ConfigurationReloadServiceTests {
    @Test("an interval of 50 ms reloads repeatedly; graceful shutdown ends the service and the group")
    func reloadsOnInterval() async throws {
        let counters = Counters()
        let configuration = ReloadableConfiguration(name: "registry", initial: 0) {
            counters.loads.add(1, ordering: .sequentiallyConsistent).newValue
        }
        let service = await ConfigurationReloadService.make(reloading: [configuration], onSignal: false, interval: .milliseconds(50))
        let group = ServiceGroup(services: [service], gracefulShutdownSignals: [], cancellationSignals: [], logger: Logger(label: "reload-test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            for _ in 0..<200 where configuration.generation < 3 {
                try await Task.sleep(for: .milliseconds(20))
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(configuration.generation >= 3)
        #expect(configuration.current == Int(configuration.generation))
    }
}
