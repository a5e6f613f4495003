import Foundation

/// Makes text an attacker may control safe to print on an operator's terminal.
///
/// A token's unverified header, a bridge message or an argument pasted from a chat can carry
/// escape sequences (recolour, retitle, hide or rewrite lines), bidi overrides that reorder
/// what is shown, and invisible format characters. Every CLI output of such text goes through
/// here: each offending Unicode scalar becomes a visible escape, everything else is kept.
enum TerminalText {
    /// Whether a scalar must not reach a terminal raw: C0 controls, DEL, C1 controls
    /// (general category Cc), format characters such as the bidi embeddings, overrides and
    /// isolates (U+202A–U+202E, U+2066–U+2069), marks (U+200E, U+200F, U+061C), zero-width
    /// characters and tags (Cf), and the line and paragraph separators (Zl, Zp).
    static func mustEscape(_ scalar: Unicode.Scalar) -> Bool {
        // The explicit ranges hold even if the runtime's Unicode tables are older than the text.
        if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { return true }
        if (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value) { return true }
        if (0x200B...0x200F).contains(scalar.value) || scalar.value == 0x061C || scalar.value == 0xFEFF { return true }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// Text for a plain-text line: each scalar that ``mustEscape(_:)`` becomes `\u{HEX}`, and a
    /// backslash becomes `\\`, so the output is one line and reads back unambiguously.
    /// - Parameter text: Untrusted text.
    /// - Returns: The text with no raw control, format or separator character left.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { mustEscape($0) || $0 == "\\" }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                result.append(contentsOf: #"\\"#.unicodeScalars)
            } else if mustEscape(scalar) {
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// Serialised JSON made terminal-safe without changing what it decodes to: each scalar
    /// that ``mustEscape(_:)`` becomes a JSON `\uXXXX` escape (a surrogate pair above U+FFFF).
    /// JSON's structure is ASCII, so such scalars only ever occur inside strings, where the
    /// escape means the same scalar.
    /// - Parameter json: JSON text as `JSONSerialization` wrote it.
    /// - Returns: The same JSON value, with no raw control, format or separator character.
    static func jsonEscaped(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: mustEscape) else { return json }
        var result = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            guard mustEscape(scalar) else {
                result.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16)
                result.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            }
        }
        return String(result)
    }

    /// Prints one line on standard output with ``escaped(_:)`` applied: the only way the
    /// commands print text that may hold untrusted parts.
    /// - Parameter line: The line, without its newline.
    static func printLine(_ line: String) {
        print(escaped(line))
    }

    /// Prints a JSON object as one line on standard output, keys sorted, with
    /// ``jsonEscaped(_:)`` applied.
    /// - Parameter object: A `JSONSerialization`-compatible object.
    static func printJSON(_ object: Any) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        print(jsonEscaped(String(decoding: data, as: UTF8.self)))
    }
}
