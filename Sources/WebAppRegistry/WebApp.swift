import Foundation

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
    /// The card's icon, if the catalogue has one: https only (http only on loopback, for
    /// development), because the native app loads it without asking the user.
    public let iconURL: URL?
    /// The card's category, for grouping in the native app's catalogue.
    public let category: String
    /// What access token the app's launches carry: none, or one exchanged for the app
    /// (never the native app's own token).
    public let accessToken: PartnerAccessToken

    /// The category of an app whose registry entry names none.
    public static let defaultCategory = "general"
    /// The longest category accepted, in bytes.
    public static let maximumCategoryLength = 64

    /// The longest app id accepted, in bytes.
    public static let maximumIDLength = IdentifierSyntax.maximumLength

    /// Creates a registry entry, checking the id and allowlist.
    /// - Parameters:
    ///   - id: `[A-Za-z0-9._-]`, 1 to 64 characters.
    ///   - title: The catalogue title.
    ///   - summary: The catalogue description.
    ///   - url: The registered URL.
    ///   - deepLinks: The deep-link allowlist, if the app may open any.
    ///   - iconURL: The card's icon: https, or http on a loopback host.
    ///   - category: The card's category: 1 to 64 bytes without control characters.
    ///   - accessToken: What access token its launches carry (default: none).
    /// - Throws: ``RegistryError`` for a bad id, allowlist, icon URL, category or access token.
    public init(
        id: String,
        title: String,
        summary: String = "",
        url: RegisteredURL,
        deepLinks: DeepLinkAllowlist? = nil,
        iconURL: URL? = nil,
        category: String = WebApp.defaultCategory,
        accessToken: PartnerAccessToken = .none
    ) throws(RegistryError) {
        guard Self.isValidID(id) else {
            throw RegistryError(.invalidAppID, "an app id must be 1 to \(Self.maximumIDLength) characters of [A-Za-z0-9._-]")
        }
        try deepLinks?.validate()
        if let iconURL, !Self.isAcceptableIconURL(iconURL) {
            throw RegistryError(.invalidIconURL, "the icon of `\(id)` must be an https URL (http only on loopback)")
        }
        guard !category.isEmpty, category.utf8.count <= Self.maximumCategoryLength,
              !category.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw RegistryError(.invalidCategory, "the category of `\(id)` must be 1 to \(Self.maximumCategoryLength) bytes without control characters")
        }
        try accessToken.validate()
        self.accessToken = accessToken
        self.iconURL = iconURL
        self.category = category
        self.id = id
        self.title = title
        self.summary = summary
        self.url = url
        self.deepLinks = deepLinks
    }

    /// Whether a URL may be shown as a card's icon: one that parses as a registered URL
    /// (SPEC.md §8.1: https, or http on a loopback host for development; no userinfo, which
    /// would put credentials in every catalogue; no fragment).
    /// - Parameter url: The candidate icon URL.
    /// - Returns: `true` when the native app may load it.
    public static func isAcceptableIconURL(_ url: URL) -> Bool {
        iconURL(url.absoluteString) != nil
    }

    /// A registry entry's `iconURL` text as a URL, when it is acceptable: it must parse by
    /// the registered-URL rules (SPEC.md §8.1), so a second implementation of the registry
    /// accepts exactly the same icons (Foundation's `URL` parser is no specification).
    /// - Parameter text: The `iconURL` member's value.
    /// - Returns: The URL of its canonical text, or `nil` when it is not acceptable.
    static func iconURL(_ text: String) -> URL? {
        guard let canonical = try? RegisteredURL(text) else { return nil }
        return URL(string: canonical.description)
    }

    /// Whether a string is acceptable as an app id.
    /// - Parameter id: The candidate id.
    /// - Returns: `true` for 1 to 64 characters of `[A-Za-z0-9._-]`.
    public static func isValidID(_ id: String) -> Bool {
        IdentifierSyntax.isValid(id)
    }
}
