/// Reads big-endian integers and length-prefixed fields from borrowed bytes, never past the
/// end, and hands fields back as offsets rather than copies.
///
/// Why not ``ByteReader``: each `ArraySlice` it returns retains the array, and verifying a
/// launch reads a dozen fields; on the verifier's hot path those retains and releases cost
/// as much as hashing a third of the token. Offsets cost nothing, and the caller turns only
/// the fields it keeps into values.
struct RawByteReader {
    struct OutOfBounds: Error {}

    private let bytes: UnsafeRawBufferPointer
    private(set) var position = 0

    /// - Parameter bytes: The bytes to read; they must outlive the reader.
    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { position == bytes.count }

    /// The next `count` bytes' offsets.
    mutating func read(_ count: Int) throws(OutOfBounds) -> Range<Int> {
        guard count >= 0, bytes.count - position >= count else { throw OutOfBounds() }
        defer { position += count }
        return position..<(position + count)
    }

    mutating func readByte() throws(OutOfBounds) -> UInt8 {
        bytes[try read(1).lowerBound]
    }

    mutating func readUInt64() throws(OutOfBounds) -> UInt64 {
        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: try read(8).lowerBound, as: UInt64.self))
    }

    mutating func readPrefixed8() throws(OutOfBounds) -> Range<Int> {
        try read(Int(try readByte()))
    }

    mutating func readPrefixed16() throws(OutOfBounds) -> Range<Int> {
        let length = UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: try read(2).lowerBound, as: UInt16.self))
        return try read(Int(length))
    }

    mutating func readPrefixed32() throws(OutOfBounds) -> Range<Int> {
        let length = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: try read(4).lowerBound, as: UInt32.self))
        return try read(Int(length))
    }
}
