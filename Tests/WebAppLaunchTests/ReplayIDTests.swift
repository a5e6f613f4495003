import Testing
import WebAppLaunch

@Suite("A replay id's bytes and hex text")
struct ReplayIDTests {
    /// Ids whose halves hit every nibble value, both ends of the range, and random bits.
    static let ids: [ReplayID] = {
        var generator = SystemRandomNumberGenerator()
        return [
            ReplayID(high: 0, low: 0),
            ReplayID(high: .max, low: .max),
            ReplayID(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210),
            ReplayID(high: 0x8000_0000_0000_0001, low: 0x0000_0000_0000_00FF),
        ] + (0..<200).map { _ in ReplayID(high: generator.next(), low: generator.next()) }
    }()

    @Test("hex is the 16 big-endian bytes as 32 lower-case digits, and bytes round-trips through init(bytes:)")
    func hexAndBytes() throws {
        for id in Self.ids {
            let bytes = id.bytes
            #expect(bytes.count == 16)
            let reference = bytes.map { byte in
                let digits = Array("0123456789abcdef")
                return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
            }.joined()
            #expect(id.hex == reference)
            #expect(id.description == reference)
            #expect(try #require(ReplayID(bytes: bytes)) == id)
            #expect(bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } == id.high, "big-endian high half first")
        }
        #expect(ReplayID(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210).hex == "0123456789abcdeffedcba9876543210")
    }
}
