/// The checks every URL-shaped input shares before it is interpreted: a byte bound, printable
/// ASCII only, and a well-formed scheme.
///
/// WebKit hands over URLs already percent-encoded and with IDN hosts in punycode, so anything
/// outside printable ASCII (spaces, control characters, Unicode lookalikes) is refused rather
/// than guessed at; browsers silently strip leading control characters, which is how
/// `"\u{1}javascript:"` slips past naive prefix checks.
enum URLText {
    /// The longest URL or deep link accepted anywhere in this module, in UTF-8 bytes.
    static let maximumLength = 2048

    /// Whether every byte is printable ASCII other than space (`0x21...0x7E`).
    static func isPrintableASCII(_ text: some StringProtocol) -> Bool {
        text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// Splits `scheme:rest`, lower-casing the scheme.
    /// - Returns: `nil` unless the text starts with `[A-Za-z][A-Za-z0-9+.-]*:`.
    static func splitScheme(_ text: String) -> (scheme: String, rest: Substring)? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.utf8.first, first.isASCIILetter,
              scheme.utf8.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else { return nil }
        return (scheme.lowercased(), text[text.index(after: colon)...])
    }

    /// Checks a DNS name or IPv4 address (labels of `[a-z0-9-]`) or a bracketed IPv6 address.
    /// - Parameter host: The host, already lower case.
    static func isValidHost(_ host: some StringProtocol) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 253 else { return false }
        if host.hasPrefix("[") {
            let inner = host.dropFirst()
            guard inner.hasSuffix("]") else { return false }
            let address = inner.dropLast()
            return !address.isEmpty && address.utf8.allSatisfy { $0.isHexDigit || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }
        }
        return host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.utf8.allSatisfy { $0.isASCIILowercaseLetter || $0.isASCIIDigit || $0 == UInt8(ascii: "-") }
        }
    }
}

extension UInt8 {
    var isASCIIDigit: Bool { (0x30...0x39).contains(self) }
    var isASCIILowercaseLetter: Bool { (0x61...0x7A).contains(self) }
    var isASCIILetter: Bool { isASCIILowercaseLetter || (0x41...0x5A).contains(self) }
    var isHexDigit: Bool { isASCIIDigit || (0x41...0x46).contains(self) || (0x61...0x66).contains(self) }
}
