/// The `launch` value and the other parameters of a request, split without decoding.
///
/// Nothing is percent-decoded: the token's alphabet never needs escaping, so a `%` in it is
/// simply malformed, and the other parameters are compared byte for byte with the registered
/// URL's. There is exactly one `launch` across query and form, or the request is malformed.
public struct LaunchParameters: Sendable, Hashable {
    /// The raw `launch` value.
    public let token: Substring
    /// The query's other `name=value` components, raw, in request order.
    public let otherQueryParameters: [Substring]

    /// Splits a request's query and (for POST) form body.
    ///
    /// - Parameters:
    ///   - query: The raw query string without `?`, or `nil`.
    ///   - form: The raw `application/x-www-form-urlencoded` body, or `nil`. A form may carry
    ///     only `launch`.
    /// - Throws: `malformed` when `launch` is missing, repeated or empty, or a component is
    ///   empty; otherwise `unexpected_parameters` when the form carries anything else.
    public init(query: Substring?, form: Substring? = nil) throws(LaunchError) {
        // Every piece of query and form is looked at before any error is chosen, so the
        // code never depends on the order of the pieces (SPEC.md §11, "Request"): all
        // `malformed` conditions win over `unexpected_parameters`.
        var token: Substring?
        var launchCount = 0
        var hasEmptyPiece = false
        var formHasOtherField = false
        var others: [Substring] = []
        func take(_ source: Substring, isForm: Bool) {
            for piece in LaunchParameterPieces(source) {
                let bytes = piece.utf8
                if bytes.isEmpty {
                    hasEmptyPiece = true
                } else if Self.isLaunchPiece(piece) {
                    launchCount += 1
                    if token == nil { token = Substring(bytes.dropFirst(min(bytes.count, "launch=".utf8.count))) }
                } else if isForm {
                    formHasOtherField = true
                } else {
                    others.append(piece)
                }
            }
        }
        if let query, !query.isEmpty { take(query, isForm: false) }
        if let form, !form.isEmpty { take(form, isForm: true) }
        guard !hasEmptyPiece else { throw LaunchError(.malformed, "the request has an empty parameter") }
        guard launchCount <= 1 else { throw LaunchError(.malformed, "`launch` is given more than once") }
        guard let token else { throw LaunchError(.malformed, "the request has no `launch` parameter") }
        guard !token.isEmpty else { throw LaunchError(.malformed, "the `launch` parameter is empty") }
        guard !formHasOtherField else {
            throw LaunchError(.unexpectedParameters, "the form carries a parameter other than `launch`")
        }
        self.token = token
        self.otherQueryParameters = others
    }

    /// The `&`-separated pieces of a query or form, empty ones included.
    ///
    /// The one splitter of the package (``LaunchParameterPieces``): it splits on the byte `&`
    /// (SPEC.md §11). Splitting the String would split on Characters, and `&` followed by a
    /// combining mark (`&\u{301}`) is one Character, not a separator.
    /// - Parameter text: A raw query (without `?`) or form body.
    /// - Returns: The pieces, raw, in order.
    package static func pieces(of text: Substring) -> [Substring] {
        Array(LaunchParameterPieces(text))
    }

    /// Whether a piece is a `launch` parameter: `launch=…`, or a bare `launch`, byte for byte.
    /// - Parameter piece: One piece from ``pieces(of:)``.
    package static func isLaunchPiece(_ piece: Substring) -> Bool {
        piece.utf8.starts(with: "launch=".utf8) || piece.utf8.elementsEqual("launch".utf8)
    }

    /// Whether a raw query or form carries a `launch` parameter at all, by the same rule the
    /// verifier splits with (the middleware decides with it whether a request is a launch).
    /// - Parameter text: A raw query or form body, or `nil`.
    /// - Returns: `true` when any piece is a `launch` piece.
    public static func carriesLaunch(_ text: Substring?) -> Bool {
        guard let text else { return false }
        return LaunchParameterPieces(text).contains(where: isLaunchPiece)
    }

    /// A whole launch URL split at its first `?`, after the check every whole URL gets before
    /// anything else (SPEC.md §11, "Whole launch URL"): it must contain `?` and no `#`.
    ///
    /// The one place that rule lives: the verifier's ``LaunchVerifier/verify(url:now:)`` and
    /// the CLI (which works out its default audience from the URL, so it must ask first).
    /// Delimiters are bytes: a `?` or `#` followed by a combining mark is one Character, and a
    /// search by Character would miss it.
    /// - Parameter url: A launch URL's text.
    /// - Returns: The text before the first `?` and the query after it.
    /// - Throws: `malformed` for a URL without `?` or with `#`.
    package static func splittingWholeURL(_ url: Substring) throws(LaunchError) -> (base: Substring, query: Substring) {
        let bytes = url.utf8
        guard let questionMark = bytes.firstIndex(of: UInt8(ascii: "?")), !bytes.contains(UInt8(ascii: "#")) else {
            throw LaunchError(.malformed, "the URL has no query or carries a fragment")
        }
        return (Substring(bytes[..<questionMark]), Substring(bytes[bytes.index(after: questionMark)...]))
    }

    /// A URL's text split at its first `?` into the part before it and the query's pieces
    /// other than `launch` (for the CLI, which derives the registered URL from a launch URL).
    /// - Parameter url: A launch URL's text.
    /// - Returns: The text before `?` and the other pieces in request order, or `nil` when
    ///   the URL has no query.
    package static func splittingLaunch(fromURL url: Substring) -> (base: Substring, others: [Substring])? {
        let bytes = url.utf8
        guard let questionMark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        // By byte: `index(after:)` of the Substring would step over a combining mark after `?`.
        let query = Substring(bytes[bytes.index(after: questionMark)...])
        return (Substring(bytes[..<questionMark]), pieces(of: query).filter { !$0.isEmpty && !isLaunchPiece($0) })
    }
}
