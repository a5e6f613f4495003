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
            // Split on the byte `&` and match `launch` byte for byte (SPEC.md §11): splitting
            // the String would split on Characters, and `&` followed by a combining mark
            // (`&\u{301}`) is one Character, not a separator.
            for bytes in source.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
                if bytes.isEmpty {
                    hasEmptyPiece = true
                } else if bytes.starts(with: "launch=".utf8) || bytes.elementsEqual("launch".utf8) {
                    launchCount += 1
                    if token == nil { token = Substring(bytes.dropFirst(min(bytes.count, "launch=".utf8.count))) }
                } else if isForm {
                    formHasOtherField = true
                } else {
                    others.append(Substring(bytes))
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
}
