import Foundation

/// Whole seconds since 1970, as launch tokens carry time (`iat`, `exp`).
///
/// One conversion for the signer, the verifier and the server, so all three agree, and it
/// never traps: clocks are injectable, and a NaN or absurd `Date` must become a rejection,
/// not a crash.
package enum UnixSeconds {
    /// Converts a date, rounding down.
    /// - Parameter date: The date.
    /// - Returns: Seconds since 1970; 0 for NaN or times before 1970, `UInt64.max` for times
    ///   at or past 2^64 seconds.
    package static func of(_ date: Date) -> UInt64 {
        let interval = date.timeIntervalSince1970
        guard interval > 0 else { return 0 }
        guard interval < 18_446_744_073_709_551_616.0 else { return UInt64.max }
        return UInt64(interval.rounded(.down))
    }
}
