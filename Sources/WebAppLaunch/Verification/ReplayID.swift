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
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64($0))) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
    }

    /// Lower-case hex of the 16 bytes; safe to log.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    public var description: String { hex }
}
