import Testing
@_spi(Testing) @testable import WebAppLaunch

@Suite("Base64URL is unpadded, strict and canonical")
struct Base64URLTests {
    static func decodeRaw(_ bytes: [UInt8]) -> [UInt8]? {
        bytes.withUnsafeBytes { Base64URL.decode(utf8: $0) }
    }

    @Test("random bytes of every length from 0 to 100 round-trip and encode like the reference encoder", arguments: 0...100)
    func roundTrip(_ length: Int) throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<4 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Base64URL.encode(bytes)
            #expect(text == ReferenceBase64URL.encode(bytes))
            #expect(text.count == (length * 4 + 2) / 3)
            #expect(Base64URL.decode(text) == bytes)
        }
    }

    @Test("canonical texts decode to the expected bytes", arguments: [
        ("", [UInt8]()), ("AA", [0]), ("AAA", [0, 0]), ("AAAA", [0, 0, 0]), ("_w", [0xFF]), ("__8", [0xFF, 0xFF]), ("____", [0xFF, 0xFF, 0xFF]),
        ("-_-_", [0xFB, 0xFF, 0xBF]), ("aGk", Array("hi".utf8)),
    ])
    func decodesCanonical(_ text: String, _ bytes: [UInt8]) {
        #expect(Base64URL.decode(text) == bytes)
    }

    @Test("padding, the standard alphabet, whitespace, impossible lengths and non-canonical trailing bits are rejected", arguments: [
        "=", "AA==", "AA=", "AAA=", "AAAA====", "A", "AAAAA", "AAAAAAAAA",
        "+AAA", "/AAA", "AA+A", "AA/A", "AAA+",
        " AAA", "AAA ", "AA\nA", "AAAA\n", "\tAAAA", "AA\rA",
        "AB", "AR", "A_", "AAB", "AAC", "AAD", "AA_", "AAAAAB", "AAAAAAF",
        "%41AA", "AA.A", "AA,A", "\u{0}AAA", "ÄAAA", "\u{0410}AAA",
    ])
    func rejects(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test("of all 256 byte values, exactly the 64 alphabet characters decode in every position of a group")
    func decodeTable() {
        let alphabet = Set(ReferenceBase64URL.alphabet.map { $0.asciiValue! })
        for position in 0..<4 {
            var accepted = 0
            for byte in UInt8.min...UInt8.max {
                var group: [UInt8] = Array("AAAA".utf8)
                group[position] = byte
                let decoded = Self.decodeRaw(group)
                #expect((decoded != nil) == alphabet.contains(byte), "byte \(byte) at position \(position)")
                if decoded != nil { accepted += 1 }
            }
            #expect(accepted == 64)
        }
    }

    @Test("a two- or three-character tail decodes only when its unused bits are zero, and then re-encodes to itself")
    func trailingBitsCanonical() {
        for last in ReferenceBase64URL.alphabet {
            let value = ReferenceBase64URL.alphabet.firstIndex(of: last)!
            let two = "A" + String(last)
            let three = "AA" + String(last)
            #expect((Base64URL.decode(two) != nil) == (value & 0x0F == 0), "\(two)")
            #expect((Base64URL.decode(three) != nil) == (value & 0x03 == 0), "\(three)")
            if let bytes = Base64URL.decode(two) { #expect(Base64URL.encode(bytes) == two) }
            if let bytes = Base64URL.decode(three) { #expect(Base64URL.encode(bytes) == three) }
        }
    }
}
