import Testing

extension Tag {
    /// Guards against a known class of token-scheme vulnerability; a failure is a security regression.
    @Tag static var securityRegression: Self
    /// Tampering with token bytes (bit flips, truncation, field edits).
    @Tag static var tampering: Self
    /// Key selection: unknown, revoked, swapped or retired kids.
    @Tag static var keySelection: Self
    /// Time window and lifetime checks.
    @Tag static var timeWindow: Self
    /// Audience, app id and request-parameter binding.
    @Tag static var audienceBinding: Self
    /// Strict base64url and size limits.
    @Tag static var encoding: Self
    /// Claims validation inside authenticated tokens.
    @Tag static var claims: Self
    /// Errors must not disclose tokens, claims or MACs.
    @Tag static var disclosure: Self
    /// Known-answer tests from RFCs, specifications or the Python reference implementation.
    @Tag static var knownAnswer: Self
}
