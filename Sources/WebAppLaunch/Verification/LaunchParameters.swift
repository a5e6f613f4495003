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
    ///   empty; `unexpected_parameters` when the form carries anything else.
    public init(query: Substring?, form: Substring? = nil) throws(LaunchError) {
        var token: Substring?
        var others: [Substring] = []
        func take(_ source: Substring, isForm: Bool) throws(LaunchError) {
            // Split on the byte `&` and match `launch` byte for byte (SPEC.md §11): splitting
            // the String would split on Characters, and `&` followed by a combining mark
            // (`&\u{301}`) is one Character, not a separator.
            for bytes in source.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
                let component = Substring(bytes)
                guard !component.isEmpty else {
                    throw LaunchError(.malformed, "the request has an empty parameter")
                }
                if bytes.starts(with: "launch=".utf8) || bytes.elementsEqual("launch".utf8) {
                    guard token == nil else { throw LaunchError(.malformed, "`launch` is given more than once") }
                    token = Substring(bytes.dropFirst(min(bytes.count, "launch=".utf8.count)))
                } else if isForm {
                    throw LaunchError(.unexpectedParameters, "the form carries a parameter other than `launch`")
                } else {
                    others.append(component)
                }
            }
        }
        if let query, !query.isEmpty { try take(query, isForm: false) }
        if let form, !form.isEmpty { try take(form, isForm: true) }
        guard let token else { throw LaunchError(.malformed, "the request has no `launch` parameter") }
        guard !token.isEmpty else { throw LaunchError(.malformed, "the `launch` parameter is empty") }
        self.token = token
        self.otherQueryParameters = others
    }
}
