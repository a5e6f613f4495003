import Foundation

/// The instant the suites treat as now: fixed, so expiry arithmetic and vectors reproduce.
public enum TestTime {
    /// 2026-11-18 11:06:40 UTC, well inside every key's and format's validity.
    public static let now = Date(timeIntervalSince1970: 1_795_000_000)
    /// ``now`` in whole seconds since 1970, as the token format carries it.
    public static let nowSeconds: UInt64 = 1_795_000_000
}
