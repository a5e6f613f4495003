import Foundation

/// What the identity provider said about an access token: whose it is, its string claims,
/// and, when the provider reports them, its scopes and expiry.
///
/// This is the only source of a user's names and KVNR in the launcher: the app's request
/// names an app and nothing else. `description` hides the claims, so a value that reaches a
/// log by accident prints nothing personal.
public struct ProviderIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The provider's subject identifier (`sub`): the key for rate limits.
    public let subject: String
    /// The provider's claims whose values are JSON strings (`sub` included).
    public let claims: [String: String]
    /// The token's scopes, when the provider says (RFC 7662 `scope`); `nil` when it does not
    /// (OpenID userinfo never does).
    public let scopes: Set<String>?
    /// When the token expires, when the provider says (RFC 7662 `exp`); bounds caching.
    public let expiresAt: Date?

    /// Creates an identity.
    /// - Parameters:
    ///   - subject: The `sub` claim.
    ///   - claims: The string-valued claims.
    ///   - scopes: The token's scopes, if known.
    ///   - expiresAt: The token's expiry, if known.
    public init(subject: String, claims: [String: String], scopes: Set<String>? = nil, expiresAt: Date? = nil) {
        self.subject = subject
        self.claims = claims
        self.scopes = scopes
        self.expiresAt = expiresAt
    }

    public var description: String { "ProviderIdentity(redacted)" }

    /// Builds an identity from a decoded JSON object, keeping only string-valued claims.
    /// - Returns: `nil` when `sub` is missing, not a string or empty.
    static func from(json object: [String: Any], scopes: Set<String>?, expiresAt: Date?) -> ProviderIdentity? {
        guard let subject = object["sub"] as? String, !subject.isEmpty else { return nil }
        var claims: [String: String] = [:]
        for (name, value) in object {
            if let text = value as? String { claims[name] = text }
        }
        return ProviderIdentity(subject: subject, claims: claims, scopes: scopes, expiresAt: expiresAt)
    }
}
