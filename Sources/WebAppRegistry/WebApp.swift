/// One entry of the catalogue: a web app the native app may launch with the user's identity.
public struct WebApp: Sendable, Hashable {
    /// The app id, carried in every launch token and checked by the verifier.
    public let id: String
    /// The title shown on the catalogue card.
    public let title: String
    /// A short description for the catalogue card.
    public let summary: String
    /// The registered URL: where launches go, and the token's audience.
    public let url: RegisteredURL
    /// The deep links this app may ask the native app to open; `nil` allows none.
    public let deepLinks: DeepLinkAllowlist?

    /// The longest app id accepted, in bytes.
    public static let maximumIDLength = IdentifierSyntax.maximumLength

    /// Creates a registry entry, checking the id and allowlist.
    /// - Parameters:
    ///   - id: `[A-Za-z0-9._-]`, 1 to 64 characters.
    ///   - title: The catalogue title.
    ///   - summary: The catalogue description.
    ///   - url: The registered URL.
    ///   - deepLinks: The deep-link allowlist, if the app may open any.
    /// - Throws: ``RegistryError`` for a bad id or allowlist.
    public init(id: String, title: String, summary: String = "", url: RegisteredURL, deepLinks: DeepLinkAllowlist? = nil) throws(RegistryError) {
        guard Self.isValidID(id) else {
            throw RegistryError(.invalidAppID, "an app id must be 1 to \(Self.maximumIDLength) characters of [A-Za-z0-9._-]")
        }
        try deepLinks?.validate()
        self.id = id
        self.title = title
        self.summary = summary
        self.url = url
        self.deepLinks = deepLinks
    }

    /// Whether a string is acceptable as an app id.
    /// - Parameter id: The candidate id.
    /// - Returns: `true` for 1 to 64 characters of `[A-Za-z0-9._-]`.
    public static func isValidID(_ id: String) -> Bool {
        IdentifierSyntax.isValid(id)
    }
}
