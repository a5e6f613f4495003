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
}
