import Foundation
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

    // Tokens are over a kilobyte: on a CPU with AVX2 their bulk is encoded and decoded by
    // the vector kernels, 24 bytes / 32 characters at a time, and only the tail by the
    // table loops. These tests hold the kernels to the reference at every length and
    // every position, so a lane or block-boundary mistake cannot hide behind short inputs.

    @Test("on a CPU with AVX2 the vector kernels are the ones in use")
    func vectorKernelsInUse() throws {
        let flags = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("flags") }.map { $0.split(separator: " ") } ?? []
        #expect(Base64URL.usesVectorKernels == flags.contains("avx2"))
    }

    @Test("random bytes of every length from 0 to 700 encode like the reference encoder and decode back")
    func longRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...700 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Base64URL.encode(bytes)
            #expect(text == ReferenceBase64URL.encode(bytes), "length \(length)")
            #expect(Base64URL.decode(text) == bytes, "length \(length)")
        }
    }

    @Test("every sextet value in every position of a block round-trips (all 64 characters in every lane)")
    func everyCharacterInEveryLane() {
        // 64 characters, rotated by one per text, so each value visits every position of
        // the 32-character block and of its 12-byte lanes.
        let alphabet = ReferenceBase64URL.alphabet.map { $0.asciiValue! }
        for shift in 0..<64 {
            let text = (0..<192).map { alphabet[($0 + shift) % 64] }
            let decoded = Self.decodeRaw(text)
            #expect(decoded.map { Array(Base64URL.encode($0).utf8) } == text, "shift \(shift)")
        }
    }

    @Test("a byte outside the alphabet anywhere in a long text is rejected")
    func rejectsAnywhereInLongText() {
        let alphabet = Set(ReferenceBase64URL.alphabet.map { $0.asciiValue! })
        let outside = (UInt8.min...UInt8.max).filter { !alphabet.contains($0) }
        let valid = Array(Base64URL.encode((0..<150).map { UInt8(truncatingIfNeeded: $0 &* 37) }).utf8)  // 200 characters
        for position in valid.indices {
            var text = valid
            text[position] = outside[position % outside.count]
            #expect(Self.decodeRaw(text) == nil, "byte \(text[position]) at \(position)")
        }
        // Every outside byte, in the first and the last lane of a vector block.
        for byte in outside {
            for position in [0, 15, 16, 31, 100] {
                var text = valid
                text[position] = byte
                #expect(Self.decodeRaw(text) == nil, "byte \(byte) at \(position)")
            }
        }
    }

    /// Decodes with the vector kernels (where the CPU has them) or with the table loops alone.
    static func decode(_ text: [UInt8], vectorised: Bool) -> [UInt8]? {
        guard let count = Base64URL.decodedByteCount(textCount: text.count) else { return nil }
        var output = [UInt8](repeating: 0, count: count)
        let decoded = text.withUnsafeBytes { text in
            output.withUnsafeMutableBytes { Base64URL.decode(utf8: text, into: $0, vectorised: vectorised) }
        }
        return decoded ? output : nil
    }

    @Test("of all 256 byte values, exactly the 64 alphabet characters decode in every lane of a vector block, to the table loops' bytes")
    func vectorClassification() {
        let alphabet = Set(ReferenceBase64URL.alphabet.map { $0.asciiValue! })
        // 128 characters: two AVX-512 blocks, four AVX2 blocks, each lane a different character.
        let valid = Array(Base64URL.encode((0..<96).map { UInt8(truncatingIfNeeded: $0 &* 53 &+ 7) }).utf8)
        for position in 0..<64 {
            var accepted = 0
            for byte in UInt8.min...UInt8.max {
                var text = valid
                text[position] = byte
                let vector = Self.decode(text, vectorised: true)
                #expect((vector != nil) == alphabet.contains(byte), "byte \(byte) in lane \(position)")
                #expect(vector == Self.decode(text, vectorised: false), "byte \(byte) in lane \(position)")
                if vector != nil { accepted += 1 }
            }
            #expect(accepted == 64, "lane \(position)")
        }
    }

    @Test("the table loops alone (all a CPU without AVX2 runs) agree with the reference at every length to 700 and reject a bad byte anywhere")
    func tableLoopsAlone() {
        var generator = SystemRandomNumberGenerator()
        func decodeScalar(_ text: [UInt8]) -> [UInt8]? { Self.decode(text, vectorised: false) }
        for length in 0...700 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = bytes.withUnsafeBytes { Base64URL.encode(raw: $0, vectorised: false) }
            #expect(text == ReferenceBase64URL.encode(bytes), "length \(length)")
            #expect(decodeScalar(Array(text.utf8)) == bytes, "length \(length)")
        }
        let valid = Array(Base64URL.encode((0..<150).map { UInt8(truncatingIfNeeded: $0 &* 37) }).utf8)
        for position in valid.indices {
            var text = valid
            text[position] = UInt8(ascii: "+")
            #expect(decodeScalar(text) == nil, "position \(position)")
        }
    }
}
