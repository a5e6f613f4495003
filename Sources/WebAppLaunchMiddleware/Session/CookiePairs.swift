/// The `name=value` pairs of one `Cookie` field value, read byte by byte.
///
/// The one reading of a `Cookie` field that finds a session (``SessionCookieCodec``) and that
/// strips our session cookies before a request reaches an upstream (the gate's
/// `SessionCookieFamily`): both must agree on where a pair starts, or a cookie one of them
/// does not see could pass the other. Pairs are separated by `;`; spaces and tabs before a
/// pair are not part of it; empty pieces are skipped; the name runs to the first `=` and the
/// value to the pair's end. Nothing is decoded, unquoted or folded: a name matches only
/// byte for byte.
///
/// Each step scans UTF-8 bytes (no `Character` segmentation, no allocation): this runs on
/// every request a gate or verifier sees.
///
/// ```swift
/// for pair in CookiePairs("a=1; webapp_launch_session=xyz") where pair.isNamed("a") { … }
/// ```
public struct CookiePairs: Sequence, IteratorProtocol, Sendable {
    /// One pair of a `Cookie` field.
    public struct Pair: Sendable, Equatable {
        /// The pair as sent, leading blanks removed (`name=value`, or a bare `name`).
        public let text: Substring
        /// The bytes before the first `=` (the whole pair when it has none).
        public let name: Substring
        /// The bytes after the first `=`; `nil` when the pair has no `=`.
        public let value: Substring?

        /// Whether the name is `name`, byte for byte.
        /// - Parameter name: A cookie name.
        /// - Returns: `true` on an exact match.
        public func isNamed(_ name: String) -> Bool {
            self.name.utf8.elementsEqual(name.utf8)
        }
    }

    private let field: Substring
    private var position: String.Index

    /// Reads the pairs of one `Cookie` field value.
    /// - Parameter field: The field's value (`a=1; b=2`).
    public init(_ field: Substring) {
        self.field = field
        self.position = field.startIndex
    }

    /// Reads the pairs of one `Cookie` field value.
    /// - Parameter field: The field's value (`a=1; b=2`).
    public init(_ field: String) {
        self.init(field[...])
    }

    /// The next non-empty pair, or `nil` at the field's end.
    public mutating func next() -> Pair? {
        let bytes = field.utf8
        while position < bytes.endIndex {
            let end = Self.firstIndex(of: UInt8(ascii: ";"), in: bytes[position...]) ?? bytes.endIndex
            var start = position
            position = end == bytes.endIndex ? end : bytes.index(after: end)
            while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") {
                start = bytes.index(after: start)
            }
            guard start < end else { continue }
            // `;`, `=`, space and tab are ASCII: every index found here is a character boundary.
            guard let equals = Self.firstIndex(of: UInt8(ascii: "="), in: bytes[start..<end]) else {
                return Pair(text: field[start..<end], name: field[start..<end], value: nil)
            }
            return Pair(text: field[start..<end], name: field[start..<equals], value: field[bytes.index(after: equals)..<end])
        }
        return nil
    }

    /// Where `byte` first occurs in `bytes`: searched in the string's contiguous UTF-8 (a
    /// native string's, as every field value is), else index by index.
    private static func firstIndex(of byte: UInt8, in bytes: Substring.UTF8View) -> String.Index? {
        if let offset = bytes.withContiguousStorageIfAvailable({ $0.firstIndex(of: byte) }) {
            return offset.map { bytes.index(bytes.startIndex, offsetBy: $0) }
        }
        return bytes.firstIndex(of: byte)
    }

    /// The value of the first pair named `name` over every `Cookie` field in `values`, the
    /// first field first; a pair without `=` has no value and is passed over.
    /// - Parameters:
    ///   - name: The cookie name, matched byte for byte.
    ///   - values: `Cookie` field values in the order they were sent.
    /// - Returns: The value, or `nil`.
    public static func firstValue<Values: Sequence<String>>(named name: String, in values: Values) -> Substring? {
        for value in values {
            for pair in CookiePairs(value) where pair.value != nil && pair.isNamed(name) {
                return pair.value
            }
        }
        return nil
    }
}
