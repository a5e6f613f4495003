/// Appends big-endian integers and length-prefixed fields to a byte buffer.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    /// An empty writer.
    init() {}

    /// An empty writer whose buffer already holds `capacity` bytes, so a token is written
    /// with one allocation instead of one per doubling.
    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func append(_ byte: UInt8) { bytes.append(byte) }

    mutating func append(contentsOf other: some Sequence<UInt8>) { bytes.append(contentsOf: other) }

    mutating func append(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ value: UInt32) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func appendPrefixed8(_ field: some Collection<UInt8>) {
        precondition(field.count <= Int(UInt8.max), "a u8-prefixed field holds at most 255 bytes")
        bytes.append(UInt8(field.count))
        bytes.append(contentsOf: field)
    }

    mutating func appendPrefixed16(_ field: some Collection<UInt8>) {
        precondition(field.count <= Int(UInt16.max), "a u16-prefixed field holds at most 65535 bytes")
        bytes.append(UInt8(field.count >> 8))
        bytes.append(UInt8(field.count & 0xFF))
        bytes.append(contentsOf: field)
    }

    mutating func appendPrefixed32(_ field: some Collection<UInt8>) {
        append(UInt32(field.count))
        bytes.append(contentsOf: field)
    }
}
