/// Text read from token and cookie bytes: valid UTF-8 becomes a `String`, anything else is
/// refused (never repaired, so no two byte strings can read as the same text).
///
/// Why not `String(validating:as:)` directly: it is generic over the encoding, and each call
/// looks up type metadata at run time, which cost more than the rest of reading a claim. The
/// identifiers, KVNRs and most names in a launch are ASCII; one pass proves that, and ASCII
/// needs no further validation. Other text goes through the standard validator.
enum UTF8Text {
    /// The bytes as a `String` if they are valid UTF-8.
    /// - Parameter bytes: Bytes from a token or cookie.
    /// - Returns: The text, or `nil` for invalid UTF-8 (overlong forms, surrogates, truncated
    ///   sequences, bytes that never occur in UTF-8).
    static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        bytes.withUnsafeBytes { decode($0) }
    }

    /// The borrowed bytes as a `String` if they are valid UTF-8.
    /// - Parameter bytes: Bytes of a token read in place.
    /// - Returns: The text, or `nil` for invalid UTF-8.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> String? {
        // Every byte below 0x80: ASCII, which is valid UTF-8 as it stands.
        if isASCII(bytes) { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether the borrowed bytes are valid UTF-8, without keeping a `String` of them (a
    /// field the caller compares as bytes and never needs as text).
    /// - Parameter bytes: Bytes of a token read in place.
    /// - Returns: `false` for invalid UTF-8, by the same rule as `decode`.
    static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        isASCII(bytes) || String(validating: bytes, as: UTF8.self) != nil
    }

    /// One branch-free pass: whether every byte is below 0x80.
    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var high: UInt8 = 0
        for byte in bytes { high |= byte }
        return high < 0x80
    }
}
