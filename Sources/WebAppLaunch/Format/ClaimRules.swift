import Foundation

/// The limits and character rules for the four claims, shared by signer and verifier so the
/// two can never disagree about what is valid (SPEC.md, "Claims").
enum ClaimRules {
    /// Longest access token, in bytes.
    static let maximumAccessTokenBytes = 8192
    /// Longest name (first or last), in UTF-8 bytes after NFC normalisation.
    static let maximumNameBytes = 256

    /// Access tokens are visible ASCII without spaces (RFC 6749's VSCHAR minus space), or
    /// empty: a launch for an app whose registry entry asks for no token carries none
    /// (SPEC.md section 10).
    static func isValidAccessToken(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count <= maximumAccessTokenBytes else { return false }
        if let valid = bytes.withContiguousStorageIfAvailable({ buffer in
            // Branch-free over the bytes: (b - 0x21) wraps above 0x5D for anything outside 0x21...0x7E.
            var bad: UInt8 = 0
            for byte in buffer { bad |= (byte &- 0x21) > 0x5D ? 1 : 0 }
            return bad == 0
        }) { return valid }
        return bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// A name is non-empty, at most 256 bytes, holds only scalars of the Unicode 14.0 table
    /// (no controls, no format characters such as bidi overrides or zero-width tricks, no
    /// private use, nothing unassigned in 14.0), does not start or end with a space, and is
    /// already in NFC (SPEC.md §10.3).
    static func isValidName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= maximumNameBytes else { return false }
        // Fast path: printable ASCII is NFC and wholly in the table; the only ASCII edge space
        // left once controls are excluded is the space.
        if let ascii = bytes.withContiguousStorageIfAvailable({ Self.asciiNameVerdict($0) }) ?? nil { return ascii }
        // The fixed Unicode 14.0 table, not the runtime's categories (SPEC.md §10.3): the
        // answer must not depend on which Unicode version this binary was built with.
        for scalar in name.unicodeScalars where !NameScalars.isAllowed(scalar.value) {
            return false
        }
        guard let first = name.unicodeScalars.first, let last = name.unicodeScalars.last,
              !NameScalars.isEdgeSpace(first.value), !NameScalars.isEdgeSpace(last.value)
        else { return false }
        // Every scalar is assigned in Unicode 14.0, so NFC is the same under any normaliser
        // of 14.0 or later (Unicode normalization stability).
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
