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
        bytes.withUnsafeBufferPointer { buffer in
            var high: UInt8 = 0
            for byte in buffer { high |= byte }
            // Every byte below 0x80: ASCII, which is valid UTF-8 as it stands.
            if high < 0x80 { return String(decoding: buffer, as: UTF8.self) }
            return String(validating: buffer, as: UTF8.self)
        }
    }
}
