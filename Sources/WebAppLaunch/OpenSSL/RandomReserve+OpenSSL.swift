internal import COpenSSL
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Output of OpenSSL's DRBG drawn a few kilobytes at a time and handed out once each.
///
/// Why: every `RAND_bytes` call pays the DRBG's fixed cost (a lock, a fork check by system
/// call, and CTR-DRBG re-keying AES after each request), about 800 ns for the 28 bytes a
/// mint needs: a quarter of minting a launch. Drawing 4 kB at once pays it once per ~140
/// mints. The bytes are still OpenSSL's; only when they are fetched changes.
///
/// Why it is safe:
/// - each byte is given out once and overwritten with zeros as it is taken;
/// - a forked child must never reuse its parent's bytes (a repeated AES-GCM IV under one
///   key is catastrophic), so the reserve lives in a page marked `MADV_WIPEONFORK`: the
///   kernel hands a child that page zeroed, and a zero count means empty. Where the kernel
///   or platform cannot do that, nothing is reserved and every request goes to `RAND_bytes`;
/// - requests larger than a small share of the reserve (keys) go straight to `RAND_bytes`.
final class RandomReserve: @unchecked Sendable {
    // Invariants: `page` is one mapped page, or nil when reserving is off; its first 8 bytes
    // count the bytes left, which lie at the end of the byte area; both change only under
    // `lock`, and bytes before the remaining ones are zero.
    private let page: UnsafeMutableRawPointer?
    private let lock = Mutex<Void>(())

    /// The page size of the reserve; its first 64 bytes hold the count.
    static let pageByteCount = 4096
    private static let areaOffset = 64
    private static let areaByteCount = pageByteCount - areaOffset
    /// Requests above this go to `RAND_bytes` directly.
    static let largestReservedRequest = 64

    /// The process's reserve.
    static let shared = RandomReserve()

    /// Maps the page and asks the kernel to wipe it in forked children.
    /// - Parameter wipeOnFork: `false` simulates a kernel without `MADV_WIPEONFORK` (tests).
    init(wipeOnFork: Bool = true) {
        page = wipeOnFork ? Self.mapWipedOnFork() : nil
    }

    deinit {
        #if os(Linux)
        if let page {
            OPENSSL_cleanse(page, Self.pageByteCount)
            munmap(page, Self.pageByteCount)
        }
        #endif
    }

    /// Whether bytes are reserved at all (false without fork protection).
    var isReserving: Bool { page != nil }

    /// The bytes left in the reserve, read without the lock: for a forked child in tests,
    /// which must not take a lock another thread may have held at the fork.
    var unlockedRemainingCount: Int { page.map { Int($0.load(as: UInt64.self)) } ?? 0 }

    /// Fills `output` with random bytes.
    /// - Parameter output: The bytes to overwrite.
    /// - Throws: ``CryptoFailure`` when OpenSSL's DRBG fails (never a weaker fallback).
    func fill(_ output: UnsafeMutableRawBufferPointer) throws(CryptoFailure) {
        guard let destination = output.baseAddress else { return }
        guard let page, output.count <= Self.largestReservedRequest else {
            guard RAND_bytes(destination.assumingMemoryBound(to: UInt8.self), Int32(output.count)) == 1 else {
                throw CryptoFailure("RAND_bytes")
            }
            return
        }
        let filled = lock.withLock { _ -> Bool in
            var remaining = Int(page.load(as: UInt64.self))
            let area = page + Self.areaOffset
            if remaining < output.count {
                guard RAND_bytes(area.assumingMemoryBound(to: UInt8.self), Int32(Self.areaByteCount)) == 1 else {
                    OPENSSL_cleanse(area, Self.areaByteCount)
                    page.storeBytes(of: 0, as: UInt64.self)
                    return false
                }
                remaining = Self.areaByteCount
            }
            let start = area + (Self.areaByteCount - remaining)
            destination.copyMemory(from: start, byteCount: output.count)
            OPENSSL_cleanse(start, output.count)
            page.storeBytes(of: UInt64(remaining - output.count), as: UInt64.self)
            return true
        }
        guard filled else { throw CryptoFailure("RAND_bytes") }
    }

    /// One anonymous page marked `MADV_WIPEONFORK`, or nil when the platform cannot.
    private static func mapWipedOnFork() -> UnsafeMutableRawPointer? {
        #if os(Linux)
        guard let page = mmap(nil, pageByteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              page != MAP_FAILED
        else { return nil }
        guard madvise(page, pageByteCount, MADV_WIPEONFORK) == 0 else {
            munmap(page, pageByteCount)
            return nil
        }
        return page
        #else
        return nil
        #endif
    }
}
