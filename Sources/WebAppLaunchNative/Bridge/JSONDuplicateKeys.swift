import Foundation

/// Finds objects that name a key twice in JSON text.
///
/// `JSONSerialization` and `JSONDecoder` silently keep one of two equal keys, so
/// `{"action":"displayText","action":"openUrl"}` would mean whatever the parser chose, and a
/// filter reading the text with another parser could see the other one. This scanner walks
/// text that already parsed as JSON, decodes every object key (escapes included, so
/// `"\u0061ction"` is `"action"`) and compares keys as Swift strings, the way the parsed
/// dictionary would merge them. Nested objects are checked too; their keys are their own.
enum JSONDuplicateKeys {
    /// What is open at a point of the text.
    private enum Container {
        /// An object: the keys seen so far, and whether the next string is a key.
        case object(keys: Set<String>, expectsKey: Bool)
        case array
    }

    /// Whether any object in `json` names a key twice. Text that is not well-formed JSON
    /// (which the caller has already refused) answers `true`: unexpected input fails closed.
    /// - Parameter json: UTF-8 JSON text that `JSONSerialization` accepted.
    /// - Returns: `true` when a key repeats (or the text cannot be scanned).
    static func containsDuplicate(in json: Data) -> Bool {
        let bytes = [UInt8](json)
        var stack: [Container] = []
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"):
                stack.append(.object(keys: [], expectsKey: true))
            case UInt8(ascii: "["):
                stack.append(.array)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard stack.popLast() != nil else { return true }
            case UInt8(ascii: ","):
                if case .object(let keys, _) = stack.last { stack[stack.count - 1] = .object(keys: keys, expectsKey: true) }
            case UInt8(ascii: "\""):
                guard let (text, end) = string(in: bytes, from: index) else { return true }
                index = end
                if case .object(var keys, true) = stack.last {
                    guard keys.insert(text).inserted else { return true }
                    stack[stack.count - 1] = .object(keys: keys, expectsKey: false)
                }
            default:
                break  // whitespace, ':', numbers, true, false, null
            }
            index += 1
        }
        return !stack.isEmpty
    }

    /// Decodes the string whose opening quote is at `start`.
    /// - Returns: The decoded text and the index of the closing quote, or `nil` when the
    ///   string is not well-formed.
    private static func string(in bytes: [UInt8], from start: Int) -> (String, Int)? {
        var units: [UInt16] = []
        var raw: [UInt8] = []
        var index = start + 1
        func flushRaw() {
            units.append(contentsOf: String(decoding: raw, as: UTF8.self).utf16)
            raw.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                flushRaw()
                return (String(decoding: units, as: UTF16.self), index)
            }
            guard byte == UInt8(ascii: "\\") else {
                raw.append(byte)
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { return nil }
            flushRaw()
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): units.append(UInt16(escape))
            case UInt8(ascii: "b"): units.append(0x08)
            case UInt8(ascii: "f"): units.append(0x0C)
            case UInt8(ascii: "n"): units.append(0x0A)
            case UInt8(ascii: "r"): units.append(0x0D)
            case UInt8(ascii: "t"): units.append(0x09)
            case UInt8(ascii: "u"):
                guard index + 4 <= bytes.count,
                      let unit = UInt16(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
                else { return nil }
                units.append(unit)
                index += 4
            default:
                return nil
            }
        }
        return nil
    }
}
