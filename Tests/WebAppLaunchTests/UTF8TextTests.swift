import Testing
@_spi(Testing) @testable import WebAppLaunch

/// Text fields are read from token and cookie bytes by one function (`UTF8Text.decode`),
/// with an ASCII fast path in front of the standard validator. These tests hold it to the
/// standard validator byte for byte, and hold every text field of a token to it.
@Suite("UTF-8 text in tokens and cookies", .tags(.securityRegression, .claims))
struct UTF8TextTests {
    /// Sequences no UTF-8 decoder may accept (Unicode 15 §3.9, table 3-7), each inside ASCII.
    static let invalidSequences: [(String, [UInt8])] = [
        ("a lone continuation byte", [0x80]),
        ("an overlong slash (C0 AF)", [0xC0, 0xAF]),
        ("an overlong three-byte slash (E0 80 AF)", [0xE0, 0x80, 0xAF]),
        ("a UTF-16 surrogate (ED A0 80)", [0xED, 0xA0, 0x80]),
        ("a sequence cut short (E2 82)", [0xE2, 0x82]),
        ("a scalar above U+10FFFF (F4 90 80 80)", [0xF4, 0x90, 0x80, 0x80]),
        ("the byte FF", [0xFF]),
        ("an overlong NUL (C0 80)", [0xC0, 0x80]),
    ]

    @Test("each invalid sequence is refused wherever it sits: start, middle, end", arguments: invalidSequences.map(\.1))
    func refusesInvalid(_ sequence: [UInt8]) {
        for bytes in [sequence + Array("Erika".utf8), Array("Er".utf8) + sequence + Array("ika".utf8), Array("Erika".utf8) + sequence] {
            #expect(UTF8Text.decode(bytes[...]) == nil, "\(bytes)")
        }
    }

    @Test("ASCII, umlauts, CJK and astral scalars decode to the same text as the standard validator")
    func acceptsValid() {
        for text in ["", "A", "Erika", "Jürgen Groß", "Ærøskøbing", "李小龙", "𝒜𝓁𝒾𝒸ℯ", "https://magazin.example/app?x=1"] {
            #expect(UTF8Text.decode(Array(text.utf8)[...]) == text)
        }
    }

    @Test("on 20,000 random byte strings it agrees with String(validating:) exactly, slices included")
    func agreesWithStandardValidator() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<20_000 {
            let count = Int.random(in: 0...24, using: &generator)
            // Half the rounds mostly ASCII with a few high bytes, half uniformly random.
            let bytes: [UInt8] = (0..<count).map { _ in
                round.isMultiple(of: 2) && Int.random(in: 0..<8, using: &generator) != 0
                    ? UInt8.random(in: 0x20...0x7E, using: &generator)
                    : UInt8.random(in: 0...0xFF, using: &generator)
            }
            let padded = [0x41] + bytes + [0x42]
            let slice = padded[1..<(padded.count - 1)]  // a slice that does not start at 0
            #expect(UTF8Text.decode(slice) == String(validating: bytes, as: UTF8.self), "\(bytes)")
        }
    }

    /// Every text field of an authentic (properly MACed) token, with each invalid sequence.
    static let tokenRows: [AttackRow] = {
        var rows: [AttackRow] = []
        for mode in [LaunchMode.signed, .sealed] {
            let base = TokenForge().with { $0.mode = mode.rawValue }
            for (name, sequence) in invalidSequences {
                rows.append(.token("\(mode): first name with \(name)", base.with { $0.firstName = Array("Er".utf8) + sequence }.token, expect: .invalidClaims))
                rows.append(.token("\(mode): last name with \(name)", base.with { $0.lastName = sequence + Array("mann".utf8) }.token, expect: .invalidClaims))
                rows.append(.token("\(mode): audience with \(name)", base.with { $0.audience += sequence }.token, expect: .malformed))
                rows.append(.token("\(mode): app id with \(name)", base.with { $0.app += sequence }.token, expect: .malformed))
            }
        }
        return rows
    }()

    @Test("every text field of a properly MACed token refuses every invalid UTF-8 sequence", arguments: tokenRows)
    func tokenFields(_ row: AttackRow) {
        row.check()
    }
}
