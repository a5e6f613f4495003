internal import COpenSSL

/// Comparisons whose time does not depend on where the inputs differ.
package enum ConstantTime {
    /// Compares two byte sequences with OpenSSL's `CRYPTO_memcmp`.
    ///
    /// Used for every MAC and tag comparison: an early-exit comparison leaks, through timing,
    /// how many leading bytes of a forged MAC were right.
    /// - Parameters:
    ///   - lhs: The first bytes.
    ///   - rhs: The second bytes.
    /// - Returns: `true` when lengths and contents are equal. Lengths are public, so a
    ///   length mismatch returns at once.
    package static func equals(_ lhs: some ConstantTimeComparable, _ rhs: some ConstantTimeComparable) -> Bool {
        lhs.withUnsafeBytes { lhs in
            rhs.withUnsafeBytes { rhs in
                guard lhs.count == rhs.count else { return false }
                guard lhs.count > 0 else { return true }
                return CRYPTO_memcmp(lhs.baseAddress, rhs.baseAddress, lhs.count) == 0
            }
        }
    }
}

extension ConstantTime {
    /// Compares raw buffers in constant time (the verifier's MAC check, without copies).
    static func equals(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard lhs.count > 0 else { return true }
        return CRYPTO_memcmp(lhs.baseAddress, rhs.baseAddress, lhs.count) == 0
    }
}

/// Raw byte access for ``ConstantTime/equals(_:_:)``, without Foundation. Package-only and
/// named apart from Foundation's `ContiguousBytes`, so it shadows nothing in a user's code.
package protocol ConstantTimeComparable {
    /// Calls `body` with the bytes.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension Array: ConstantTimeComparable where Element == UInt8 {}
extension ArraySlice: ConstantTimeComparable where Element == UInt8 {}

/// A cookie's or header's text as it arrived: compared without copying when its storage is
/// contiguous (a native string's always is), from a copy otherwise.
extension Substring.UTF8View: ConstantTimeComparable {
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let result = try withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) { return result }
        return try Array(self).withUnsafeBytes(body)
    }
}
