/// Escapes untrusted text for HTML, one Unicode scalar at a time.
///
/// Escaping per `Character` (extended grapheme cluster) is not enough: a markup character
/// joined to a neighbouring scalar (a Prepend character before it, a combining or spacing
/// mark after it) forms one cluster that no longer equals `"<"`, so a per-Character table
/// copies it raw, and the browser's tokenizer, which reads code points, sees the `<`. Every
/// place this package writes HTML (the page, the console, rejection pages) goes through this
/// one function, which looks at each scalar alone.
///
/// The output is safe in element content and in attribute values quoted with `"` or `'`;
/// it is not meant for unquoted attributes, URLs, scripts or styles, where untrusted text
/// never goes.
public enum HTMLEscaping {
    /// Escapes `&`, `<`, `>`, `"`, `'` and `` ` `` wherever they occur, whatever surrounds them.
    /// - Parameter text: Untrusted text.
    /// - Returns: The text with those five scalars replaced by character references.
    public static func escape(_ text: some StringProtocol) -> String {
        // Fast path: most names contain none of the six scalars.
        guard text.utf8.contains(where: { needsEscaping($0) }) else { return String(text) }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result.append(contentsOf: "&amp;".unicodeScalars)
            case "<": result.append(contentsOf: "&lt;".unicodeScalars)
            case ">": result.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": result.append(contentsOf: "&quot;".unicodeScalars)
            case "'": result.append(contentsOf: "&#39;".unicodeScalars)
            case "`": result.append(contentsOf: "&#96;".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    /// Whether a UTF-8 byte is one of the escaped ASCII scalars (they never occur inside a
    /// multi-byte sequence, so a byte test is exact).
    private static func needsEscaping(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "`"): true
        default: false
        }
    }
}
