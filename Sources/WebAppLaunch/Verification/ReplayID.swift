/// A launch's nonce as a replay store keeps it: 16 bytes of HMAC-SHA256 under a key derived
/// for this purpose.
///
/// Keyed, so a dump of a replay store (or a log line carrying ``hex``) reveals no nonce and
/// cannot be matched against captured URLs without the keyring.
public struct ReplayID: Sendable, Hashable, CustomStringConvertible {
    /// The first 8 bytes, big-endian.
    public let high: UInt64
    /// The last 8 bytes, big-endian.
    public let low: UInt64

    /// Creates an id from its two halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Creates an id from 16 bytes.
    /// - Parameter bytes: Exactly 16 bytes.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        high = bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        low = bytes.dropFirst(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The 16 bytes.
    public var bytes: [UInt8] {
        (0..<16).map { index in
            UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> UInt64(56 - 8 * (index % 8)))
        }
    }

    /// Lower-case hex of the 16 bytes; safe to log.
    ///
    /// Written straight into the string's storage: every accepted launch's session carries
    /// it, and the per-byte arrays this was built from cost a dozen allocations a launch.
    public var hex: String {
        String(unsafeUninitializedCapacity: 32) { text in
            for index in 0..<32 {
                let half = index < 16 ? high : low
                let nibble = UInt8(truncatingIfNeeded: half >> UInt64(60 - 4 * (index % 16))) & 15
                text[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
            }
            return 32
        }
    }

    public var description: String { hex }
}
