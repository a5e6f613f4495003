import Testing
@testable import WebAppLaunch

@Suite("KVNR syntax and check digit")
struct KVNRTests {
    /// Check digits worked out by hand (and by scripts/vectors.py), e.g. A123456780:
    /// 0 1 | 1 2 3 4 5 6 7 8 weighted 1 2 1 2 … → 0 2 1 4 3 8 5 (12→)3 7 (16→)7 = 40 → 0.
    static let valid = ["A123456780", "B987654320", "C111111118", "D246813578", "E555555555", "K135792460", "M000000019", "Q000000006", "X110225000", "Z999999997"]

    @Test("valid numbers are accepted", arguments: valid)
    func accepts(_ value: String) throws {
        let kvnr = try #require(KVNR(value))
        #expect(kvnr.value == value)
        #expect(KVNR.isValid(Array(value.utf8)))
    }

    @Test("every wrong check digit is rejected", arguments: valid)
    func wrongCheckDigits(_ value: String) {
        let correct = value.last!
        for digit in "0123456789" where digit != correct {
            #expect(KVNR(String(value.dropLast()) + String(digit)) == nil, "\(digit)")
        }
    }

    @Test("the worked example's check digit is 0")
    func workedExample() {
        #expect(KVNR.checkDigit(letter: UInt8(ascii: "A"), digits: [1, 2, 3, 4, 5, 6, 7, 8]) == 0)
        #expect(KVNR.checkDigit(letter: UInt8(ascii: "Z"), digits: [9, 9, 9, 9, 9, 9, 9, 9]) == 7)
        // Out-of-range input is refused, never a trap (the function is public).
        #expect(KVNR.checkDigit(letter: 0x00, digits: [1, 2, 3, 4, 5, 6, 7, 8]) == nil)
        #expect(KVNR.checkDigit(letter: UInt8(ascii: "a"), digits: [1, 2, 3, 4, 5, 6, 7, 8]) == nil)
        #expect(KVNR.checkDigit(letter: UInt8(ascii: "A"), digits: [1, 2, 3]) == nil)
        #expect(KVNR.checkDigit(letter: UInt8(ascii: "A"), digits: [1, 2, 3, 4, 5, 6, 7, 10]) == nil)
    }

    @Test("wrong letters, lengths and characters are rejected", arguments: [
        "a123456780", "z999999997", "Ä123456780", "1123456780", "AA23456780",
        "", "A", "A12345678", "A1234567800", "A12345678 ", " A123456780",
        "A12345678X", "A1234 5678", "A12345678O", "A１２３４５６７８０", "A-23456780", "@123456780", "[123456780",
    ])
    func rejects(_ value: String) {
        #expect(KVNR(value) == nil)
        #expect(!KVNR.isValid(Array(value.utf8)))
    }

    @Test("for every letter and 400 random serials, exactly the check digit checkDigit computes is accepted")
    func validationAgreesWithCheckDigit() throws {
        for letter in UInt8(ascii: "A")...UInt8(ascii: "Z") {
            for _ in 0..<400 {
                let serial = (0..<8).map { _ in Int.random(in: 0...9) }
                let check = try #require(KVNR.checkDigit(letter: letter, digits: serial))
                let prefix = [letter] + serial.map { UInt8(0x30 + $0) }
                for digit in 0...9 {
                    #expect(KVNR.isValid(prefix + [UInt8(0x30 + digit)]) == (digit == check), "\(prefix) \(digit)")
                }
            }
        }
    }

    @Test("a KVNR prints masked, never in full")
    func masked() throws {
        let kvnr = try #require(KVNR("A123456780"))
        #expect(kvnr.masked == "A********0")
        #expect(kvnr.description == "A********0")
        #expect(!"\(kvnr)".contains("12345678"))
    }
}
