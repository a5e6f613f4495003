/// Reads big-endian integers and length-prefixed fields, never past the end.
struct ByteReader {
    struct OutOfBounds: Error {}

    private let bytes: ArraySlice<UInt8>
    private(set) var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    var isAtEnd: Bool { position == bytes.endIndex }

    mutating func read(_ count: Int) throws(OutOfBounds) -> ArraySlice<UInt8> {
        guard count >= 0, bytes.endIndex - position >= count else { throw OutOfBounds() }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    mutating func readByte() throws(OutOfBounds) -> UInt8 { try read(1).first! }

    mutating func readUInt64() throws(OutOfBounds) -> UInt64 {
        try read(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func readPrefixed8() throws(OutOfBounds) -> ArraySlice<UInt8> {
        try read(Int(try readByte()))
    }

    mutating func readPrefixed16() throws(OutOfBounds) -> ArraySlice<UInt8> {
        let length = try read(2).reduce(0) { $0 << 8 | Int($1) }
        return try read(length)
    }

    mutating func readPrefixed32() throws(OutOfBounds) -> ArraySlice<UInt8> {
        let length = try read(4).reduce(0) { $0 << 8 | Int($1) }
        return try read(length)
    }
}
