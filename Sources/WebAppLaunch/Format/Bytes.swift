#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-string comparison for public values (kids, app ids, audiences) read in place from a
/// token. Not for secrets: `memcmp` returns at the first difference; MACs and tags go
/// through ``ConstantTime``.
enum Bytes {
    /// Whether `expected` and `actual` hold the same bytes.
    static func equal(_ expected: [UInt8], _ actual: UnsafeRawBufferPointer) -> Bool {
        guard expected.count == actual.count else { return false }
        guard !expected.isEmpty else { return true }
        return expected.withUnsafeBytes { memcmp($0.baseAddress!, actual.baseAddress!, actual.count) == 0 }
    }

    /// The offset of the first `byte` in `buffer`, or `nil`: `memchr`, which compares a vector
    /// of bytes per instruction where a Swift loop compares one. A launch's query (about
    /// 1.2 KB) is scanned for `&` twice per request; the loop was 3 % of a launch's CPU.
    static func firstOffset(of byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = buffer.baseAddress, let found = memchr(base, Int32(byte), buffer.count) else { return nil }
        return UnsafeRawPointer(found) - UnsafeRawPointer(base)
    }
}
