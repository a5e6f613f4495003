/// Which access tokens the launcher accepts: only those the identity provider issued to the
/// native app, for the launcher.
///
/// A token is a bearer credential for whoever it was issued to and for whatever audience it
/// names. A token issued to another OAuth client, or one exchanged for a partner (whose
/// audience is the partner's), or a refresh token must mint nothing, however valid the
/// provider says it is. Both checks are needed: the client id says who asked for the token,
/// the audience says where it may be spent.
public struct NativeAppTokenPolicy: Sendable, Hashable {
    /// The native app's OAuth client ids (one per platform, typically); the token's
    /// `client_id` must be one of them.
    public let clientIDs: Set<String>
    /// The launcher's audience; a token's `aud` must name it (for introspection: when the
    /// provider reports `aud` at all).
    public let audience: String

    /// Creates a policy.
    /// - Parameters:
    ///   - clientIDs: The native app's client ids; at least one.
    ///   - audience: The launcher's audience (its resource identifier at the provider).
    public init(clientIDs: Set<String>, audience: String) {
        self.clientIDs = clientIDs.filter { !$0.isEmpty }
        self.audience = audience
    }

    /// Whether a `client_id` claim names the native app.
    func admits(clientID: Any?) -> Bool {
        guard let clientID = clientID as? String else { return false }
        return clientIDs.contains(clientID)
    }

    /// Whether an `aud` claim (a string or an array of strings) names the launcher.
    func admits(audienceClaim: Any?) -> Bool {
        if let single = audienceClaim as? String { return !audience.isEmpty && single == audience }
        if let many = audienceClaim as? [Any] { return !audience.isEmpty && many.contains { ($0 as? String) == audience } }
        return false
    }

    /// The `token_type` values of an access token: RFC 7662 reports the RFC 6749 type
    /// (`Bearer`; `DPoP` is not supported here); some providers answer with the hint's
    /// vocabulary or the RFC 8693 URI. Refresh tokens and anything else are refused.
    static func isAccessTokenType(_ value: Any?) -> Bool {
        guard let text = (value as? String)?.lowercased() else { return false }
        return text == "bearer" || text == "access_token" || text == "urn:ietf:params:oauth:token-type:access_token"
    }
}
