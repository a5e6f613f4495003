import Foundation

/// The limits and character rules for the four claims, shared by signer and verifier so the
/// two can never disagree about what is valid (SPEC.md, "Claims").
enum ClaimRules {
    /// Longest access token, in bytes.
    static let maximumAccessTokenBytes = 8192
    /// Longest name (first or last), in UTF-8 bytes after NFC normalisation.
    static let maximumNameBytes = 256

    /// Access tokens are visible ASCII without spaces (RFC 6749's VSCHAR minus space).
    static func isValidAccessToken(_ bytes: some Collection<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count <= maximumAccessTokenBytes else { return false }
        if let valid = bytes.withContiguousStorageIfAvailable({ buffer in
            // Branch-free over the bytes: (b - 0x21) wraps above 0x5D for anything outside 0x21...0x7E.
            var bad: UInt8 = 0
            for byte in buffer { bad |= (byte &- 0x21) > 0x5D ? 1 : 0 }
            return bad == 0
        }) { return valid }
        return bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// A name is non-empty, at most 256 bytes, contains no control or format characters
    /// (no bidi overrides, no zero-width tricks) and is already in NFC.
    static func isValidName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= maximumNameBytes else { return false }
        // Fast path: printable ASCII is NFC and has no Cc/Cf/Z*/C* scalars; the only ASCII
        // White_Space left once controls are excluded is the space.
        if let ascii = bytes.withContiguousStorageIfAvailable({ Self.asciiNameVerdict($0) }) ?? nil { return ascii }
        for scalar in name.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                return false
            default:
                continue
            }
        }
        guard name.unicodeScalars.first?.properties.isWhitespace == false,
              name.unicodeScalars.last?.properties.isWhitespace == false
        else { return false }
        return isAlreadyNFC(name) || bytes.elementsEqual(name.precomposedStringWithCanonicalMapping.utf8)
    }

    /// Every scalar below U+0300 has NFC_Quick_Check=Yes and none of them composes with
    /// another (composition needs a combining mark, U+0300 or above), so such a string is in
    /// NFC without asking Foundation: the common case for European names ("Jürgen Groß").
    static func isAlreadyNFC(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.value < 0x300 }
    }

    /// The NFC form of a name, as the signer mints it.
    static func normalisedName(_ name: String) -> String {
        isAlreadyNFC(name) ? name : name.precomposedStringWithCanonicalMapping
    }

    /// For an all-ASCII name, whether it is valid; `nil` when a byte is not ASCII (slow path).
    private static func asciiNameVerdict(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        var printable = true
        for byte in bytes {
            if byte >= 0x80 { return nil }
            if byte < 0x20 || byte == 0x7F { printable = false }
        }
        return printable && bytes.first != 0x20 && bytes.last != 0x20
    }
}
