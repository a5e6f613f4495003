import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
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

    @Test("each sweep removes exactly the ids past their deadline, whatever order they were claimed in")
    func sweepsFollowEveryDeadline() throws {
        // A shard sweeps only once its earliest deadline has passed: that bound must follow
        // every claim and every sweep, or expired ids would stay and fill the store. All ids
        // share one shard (equal low % 16), so one shard's bookkeeping is what is tested.
        let store = InMemoryReplayStore(capacity: 1024)
        func shardID(_ n: UInt64) -> ReplayID { Self.id(n * 16) }
        let deadlines: [UInt64] = [300, 100, 200, 300, 100, 200]  // not in deadline order
        for (n, offset) in deadlines.enumerated() {
            #expect(try store.claim(shardID(UInt64(n)), until: Self.now + offset, now: Self.now))
        }
        store.sweep(now: Self.now + 99)
        #expect(store.count() == 6)
        store.sweep(now: Self.now + 150)
        #expect(store.count() == 4, "the two ids due at +100 are gone")
        // Claimed after that sweep, with a deadline before the shard's earliest remaining one.
        #expect(try store.claim(shardID(6), until: Self.now + 160, now: Self.now + 150))
        store.sweep(now: Self.now + 170)
        #expect(store.count() == 4, "the id due at +160 is gone, the later ones stay")
        #expect(try store.claim(shardID(6), until: Self.now + 400, now: Self.now + 170), "a swept id is claimable again")
        store.sweep(now: Self.now + 250)
        #expect(store.count() == 3, "the two ids due at +200 are gone")
        store.sweep(now: Self.now + 300)
        #expect(store.count() == 1, "only the id due at +400 is left")
        #expect(try store.claim(shardID(6), until: Self.now + 400, now: Self.now + 300) == false)
        store.sweep(now: Self.now + 400)
        #expect(store.count() == 0)
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
        let store = InMemoryReplayStore(capacity: 16)
        for index in 0..<16 {
            #expect(try store.claim(Self.id(UInt64(index)), until: Self.now + 100, now: Self.now))
        }
        let error = #expect(throws: ReplayStoreError.self) {
            try store.claim(Self.id(16), until: Self.now + 100, now: Self.now)
        }
        #expect(error?.code == .full)
        #expect(store.count() == 16)
        #expect(try store.claim(Self.id(0), until: Self.now + 100, now: Self.now + 1) == false, "the live id was not evicted")
        // Once the ids expire, a full store sweeps every shard before refusing.
        #expect(try store.claim(Self.id(16), until: Self.now + 200, now: Self.now + 100))
        for index in 17..<32 {
            #expect(try store.claim(Self.id(UInt64(index)), until: Self.now + 200, now: Self.now + 100))
        }
        #expect(throws: ReplayStoreError.self, "full again, of live ids") {
            try store.claim(Self.id(32), until: Self.now + 200, now: Self.now + 100)
        }
    }

    @Test("the capacity is the total, however unevenly ids fall into shards")
    func capacityIsTotal() throws {
        let store = InMemoryReplayStore(capacity: 64)
        // Every id in one shard (equal low % 16): the whole capacity is still usable.
        for index in 0..<64 {
            #expect(try store.claim(Self.id(UInt64(index * 16)), until: Self.now + 100, now: Self.now))
        }
        #expect(throws: ReplayStoreError.self) { try store.claim(Self.id(64 * 16), until: Self.now + 100, now: Self.now) }
    }
}
