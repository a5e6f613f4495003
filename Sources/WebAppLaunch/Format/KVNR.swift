/// A German health-insurance number (Krankenversichertennummer): one letter A–Z, eight
/// digits, one check digit.
///
/// The check digit is computed over the letter's two-digit alphabet position (A = 01 …
/// Z = 26) followed by the eight digits, with weights 1-2-1-2…; two-digit products are
/// replaced by their digit sum, and the check digit is the total modulo 10.
public struct KVNR: Sendable, Hashable, CustomStringConvertible {
    /// The ten characters, e.g. `A123456780`.
    public let value: String

    /// Validates a KVNR's syntax and check digit.
    /// - Parameter value: The candidate.
    /// - Returns: `nil` when the syntax or the check digit is wrong.
    public init?(_ value: String) {
        guard Self.isValid(value.utf8) else { return nil }
        self.value = value
    }

    /// Adopts a value the caller has just checked with ``isValid(_:)`` (the verifier, which
    /// validates the token's bytes before it makes a `String` of them), so it is not checked twice.
    init(validated value: String) {
        assert(Self.isValid(value.utf8), "KVNR(validated:) takes only validated values")
        self.value = value
    }

    /// Whether the bytes are a KVNR with a correct check digit.
    /// - Parameter bytes: The candidate's UTF-8 bytes.
    /// - Returns: `true` only for `[A-Z][0-9]{9}` with the right check digit.
    public static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count == 10, let letter = bytes.first, (0x41...0x5A).contains(letter) else { return false }
        // One pass, nothing allocated: every verified launch checks a KVNR.
        let position = Int(letter - 0x40)
        var total = weighted(position / 10, at: 0) + weighted(position % 10, at: 1)
        var index = 2
        var check = 0
        for byte in bytes.dropFirst() {
            guard (0x30...0x39).contains(byte) else { return false }
            let digit = Int(byte - 0x30)
            if index == 10 { check = digit } else { total += weighted(digit, at: index) }
            index += 1
        }
        return total % 10 == check
    }

    /// Computes the check digit for a letter and eight digits.
    /// - Parameters:
    ///   - letter: An ASCII capital letter, `A` to `Z`.
    ///   - digits: The eight serial digits, each 0 to 9.
    /// - Returns: The check digit, 0 to 9, or `nil` when the letter or a digit is out of range
    ///   (never a crash: the function is public, so any input must be safe).
    public static func checkDigit(letter: UInt8, digits: some Collection<Int>) -> Int? {
        guard (0x41...0x5A).contains(letter), digits.count == 8, digits.allSatisfy({ (0...9).contains($0) }) else { return nil }
        let position = Int(letter - 0x40)
        var total = weighted(position / 10, at: 0) + weighted(position % 10, at: 1)
        for (offset, digit) in digits.enumerated() { total += weighted(digit, at: offset + 2) }
        return total % 10
    }

    /// One digit's share of the check sum: the letter's two position digits come first
    /// (indices 0 and 1), then the serial digits; weights alternate 1, 2, 1, 2, … and a
    /// two-digit product counts as its digit sum.
    private static func weighted(_ digit: Int, at index: Int) -> Int {
        let product = digit * (index % 2 == 0 ? 1 : 2)
        return product / 10 + product % 10
    }

    /// The KVNR with all but the first letter and the check digit masked, for display and logs
    /// meant for the user (`A********0`).
    public var masked: String {
        String(value.prefix(1)) + String(repeating: "*", count: 8) + String(value.suffix(1))
    }

    public var description: String { masked }
}
