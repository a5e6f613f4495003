import Testing
import WebAppLaunch
import WebAppLaunchServer

@Suite("The in-memory replay store claims each launch once, forgets only expired ids, and refuses when full")
struct InMemoryReplayStoreTests {
    static let now: UInt64 = 1_795_000_000
    static func id(_ n: UInt64, high: UInt64 = 0x5EED) -> ReplayID { ReplayID(high: high, low: n) }

    @Test("of two hundred concurrent claims of one id, exactly one succeeds")
    func exactlyOnceUnderConcurrency() async throws {
        let store = InMemoryReplayStore(capacity: 1024)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 {
                group.addTask { try store.claim(Self.id(42), until: Self.now + 120, now: Self.now) }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 200)
        #expect(results.filter { $0 }.count == 1)
        #expect(store.count() == 1)
    }

    @Test("concurrent claims of distinct ids all succeed")
    func distinctIDsAllSucceed() async throws {
        let store = InMemoryReplayStore(capacity: 1024)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for n in 0..<200 {
                group.addTask { try store.claim(Self.id(UInt64(n)), until: Self.now + 120, now: Self.now) }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 })
        #expect(store.count() == 200)
    }

    @Test("sweeping removes ids past their deadline and keeps the others")
    func sweepRemovesExpired() throws {
        let store = InMemoryReplayStore(capacity: 1024)
        for n in 0..<10 { #expect(try store.claim(Self.id(UInt64(n)), until: Self.now + 100, now: Self.now)) }
        for n in 10..<15 { #expect(try store.claim(Self.id(UInt64(n)), until: Self.now + 1000, now: Self.now)) }
        #expect(store.count() == 15)
        store.sweep(now: Self.now + 99)
        #expect(store.count() == 15)
        store.sweep(now: Self.now + 100)
        #expect(store.count() == 5)
        #expect(try store.claim(Self.id(12), until: Self.now + 1000, now: Self.now + 100) == false)
    }

    @Test("an id is refused until it is swept, even past its deadline")
    func presentMeansUsed() throws {
        let store = InMemoryReplayStore(capacity: 1024)
        #expect(try store.claim(Self.id(1), until: Self.now + 2, now: Self.now))
        // Within the sweep interval the expired id is still held: fail closed.
        #expect(try store.claim(Self.id(1), until: Self.now + 2, now: Self.now + 3) == false)
    }

    @Test("a full store throws .full instead of evicting a live id, and accepts again once ids expire")
    func fullStoreThrows() throws {
        // Sixteen shards of capacity one; ids with equal `low % 16` share a shard.
        let store = InMemoryReplayStore(capacity: 16)
        #expect(try store.claim(Self.id(0), until: Self.now + 100, now: Self.now))
        let error = #expect(throws: ReplayStoreError.self) {
            try store.claim(Self.id(16), until: Self.now + 100, now: Self.now)
        }
        #expect(error?.code == .full)
        #expect(try store.claim(Self.id(0), until: Self.now + 100, now: Self.now + 1) == false, "the live id was not evicted")
        #expect(try store.claim(Self.id(1), until: Self.now + 100, now: Self.now + 1), "other shards still have room")
        #expect(try store.claim(Self.id(16), until: Self.now + 200, now: Self.now + 100), "a full shard sweeps expired ids before refusing")
        #expect(throws: ReplayStoreError.self, "the shard is full again, of a live id") {
            try store.claim(Self.id(32), until: Self.now + 200, now: Self.now + 100)
        }
    }
}
