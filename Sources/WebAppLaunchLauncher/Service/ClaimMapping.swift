/// Which of the provider's claims hold the user's names and KVNR, and which scopes a token
/// must carry.
///
/// Identity providers name non-standard claims differently (`kvnr`, `kvnumber`,
/// `urn:…:kvnr`), so the names are configuration; the defaults are the OpenID Connect
/// standard claims for the names and `kvnr` for the KVNR.
public struct ClaimMapping: Sendable, Hashable {
    /// The claim holding the first name.
    public var firstName: String
    /// The claim holding the last name.
    public var lastName: String
    /// The claim holding the KVNR.
    public var kvnumber: String
    /// Scopes the token must carry. Only a provider that reports scopes (introspection) can
    /// satisfy a non-empty set; with userinfo, a non-empty set refuses every token (fail closed).
    public var requiredScopes: Set<String>

    /// Creates a mapping.
    /// - Parameters:
    ///   - firstName: Default `given_name`.
    ///   - lastName: Default `family_name`.
    ///   - kvnumber: Default `kvnr`.
    ///   - requiredScopes: Default none.
    public init(firstName: String = "given_name", lastName: String = "family_name", kvnumber: String = "kvnr", requiredScopes: Set<String> = []) {
        self.firstName = firstName
        self.lastName = lastName
        self.kvnumber = kvnumber
        self.requiredScopes = requiredScopes
    }
}
