#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import WebAppLaunch

/// Nonces and IVs come from ``RandomReserve``: OpenSSL's DRBG output drawn in bulk. Its
/// promises are that no byte is handed out twice, that a forked child never reuses the
/// parent's bytes, and that without the kernel's wipe-on-fork nothing is held back at all.
@Suite("The random reserve gives every byte once and never to a forked child", .tags(.securityRegression))
struct RandomReserveTests {
    static func draw(_ reserve: RandomReserve, _ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        try bytes.withUnsafeMutableBytes { buffer in
            do { try reserve.fill(buffer) } catch { throw error }
        }
        return bytes
    }

    @Test("28-byte draws across many refills are all distinct, and the reserve shrinks by each draw")
    func drawsAreDistinct() throws {
        let reserve = RandomReserve()
        #expect(reserve.isReserving, "this kernel supports MADV_WIPEONFORK")
        var seen = Set<[UInt8]>()
        var previous = reserve.unlockedRemainingCount
        for _ in 0..<20_000 {
            let bytes = try Self.draw(reserve, 28)
            #expect(seen.insert(bytes).inserted)
            let remaining = reserve.unlockedRemainingCount
            // Either 28 fewer, or a refill happened (the count jumps up).
            #expect(remaining == previous - 28 || remaining > previous)
            previous = remaining
        }
        #expect(seen.count == 20_000)
    }

    @Test("a forked child finds the reserve empty (the page is wiped), and the parent keeps its bytes")
    func forkedChildStartsEmpty() throws {
        let reserve = RandomReserve()
        _ = try Self.draw(reserve, 16)
        let before = reserve.unlockedRemainingCount
        #expect(before > 0)
        let child = fork()
        if child == 0 {
            // Only a memory read and _exit here: another thread may hold a lock at the fork.
            _exit(reserve.unlockedRemainingCount == 0 ? 0 : 1)
        }
        try #require(child > 0)
        // Bounded (10 s): a child stuck on a lock some other thread held at the fork is
        // killed and fails the test instead of hanging the run.
        var status: Int32 = 0
        var reaped: pid_t = 0
        for _ in 0..<1_000 where reaped == 0 {
            reaped = waitpid(child, &status, WNOHANG)
            if reaped == 0 { usleep(10_000) }
        }
        if reaped == 0 {
            kill(child, SIGKILL)
            reaped = waitpid(child, &status, 0)
            Issue.record("the forked child did not exit within 10 s")
        }
        #expect(reaped == child)
        #expect(status & 0x7F == 0, "the child exited normally")
        #expect((status >> 8) & 0xFF == 0, "the child's reserve was empty")
        #expect(reserve.unlockedRemainingCount == before, "control: the parent's reserve is unchanged")
    }

    @Test("without wipe-on-fork nothing is reserved: every request goes to RAND_bytes")
    func noReserveWithoutWipeOnFork() throws {
        let reserve = RandomReserve(wipeOnFork: false)
        #expect(!reserve.isReserving)
        let first = try Self.draw(reserve, 28), second = try Self.draw(reserve, 28)
        #expect(first != second)
        #expect(reserve.unlockedRemainingCount == 0)
    }

    @Test("a request larger than the reserved size bypasses the reserve")
    func largeRequestsBypass() throws {
        let reserve = RandomReserve()
        _ = try Self.draw(reserve, 8)
        let before = reserve.unlockedRemainingCount
        let large = try Self.draw(reserve, RandomReserve.largestReservedRequest + 1)
        #expect(large.contains { $0 != 0 })
        #expect(reserve.unlockedRemainingCount == before)
    }
}
