/// The `&`-separated pieces of a raw query or form body, one at a time, split on the byte `&`.
///
/// A launch request's query is about 1.4 KB, and every request is split twice (the middleware
/// asks whether it carries `launch`, then the verifier splits it). So the pieces are found by
/// scanning the bytes in place and handed out as slices of the text: no array, no copy.
/// Bytes, not Characters: `&` followed by a combining mark is one Character but still a
/// separator (SPEC.md §11).
struct LaunchParameterPieces: Sequence, IteratorProtocol {
    private let text: Substring
    /// Where the next piece starts; `nil` once the last piece was handed out.
    private var start: String.Index?

    /// The pieces of `text`; an empty text is one empty piece, as for `split`.
    init(_ text: Substring) {
        self.text = text
        start = text.startIndex
    }

    mutating func next() -> Substring? {
        guard let from = start else { return nil }
        let bytes = text.utf8[from...]
        let separator = UInt8(ascii: "&")
        // Contiguous (native) text: `memchr` over the buffer, then O(1) index arithmetic.
        let offset: Int?? = bytes.withContiguousStorageIfAvailable { buffer in Bytes.firstOffset(of: separator, in: buffer) }
        let ampersand: String.Index?
        switch offset {
        case .some(.some(let offset)): ampersand = text.utf8.index(from, offsetBy: offset)
        case .some(.none): ampersand = nil
        case .none: ampersand = bytes.firstIndex(of: separator)
        }
        guard let ampersand else {
            start = nil
            return Substring(bytes)
        }
        start = text.utf8.index(after: ampersand)
        return Substring(text.utf8[from..<ampersand])
    }
}
