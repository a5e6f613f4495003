/// A launch nonce's 16 bytes held inline, as two big-endian halves.
///
/// Every verified launch carries its nonce in ``LaunchHeader``; kept as an array it cost an
/// allocation per verification, though callers rarely read it (the replay store claims the
/// ``ReplayID``). ``LaunchHeader/nonce`` builds the array when asked.
struct NonceBytes: Sendable, Hashable {
    /// The first 8 bytes, big-endian.
    let high: UInt64
    /// The last 8 bytes, big-endian.
    let low: UInt64

    /// Takes exactly 16 bytes (the token layout's nonce).
    init(_ bytes: some Collection<UInt8>) {
        precondition(bytes.count == TokenLayout.nonceByteCount, "a nonce is 16 bytes")
        var high: UInt64 = 0, low: UInt64 = 0
        for (offset, byte) in bytes.enumerated() {
            if offset < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.high = high
        self.low = low
    }

    /// The 16 bytes, in order.
    var bytes: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index)))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index)))
        }
        return bytes
    }
}
