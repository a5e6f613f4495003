import Foundation

/// One card of the launcher's catalogue, as the native app shows it: the document's `Card`
/// (generated from `openapi.yaml`) with its URLs parsed, so views need not.
public struct LauncherCard: Sendable, Hashable, Identifiable {
    /// The app id to ask a launch for.
    public let id: String
    /// The card's title.
    public let title: String
    /// The card's description.
    public let summary: String
    /// The icon's URL, if the app has one.
    public let iconURL: URL?
    /// The category, for grouping cards.
    public let category: String
    /// The registered URL (the launch's audience).
    public let url: URL

    /// Creates a card (the client reads them from the launcher; this is for previews and tests).
    public init(id: String, title: String, summary: String, iconURL: URL?, category: String, url: URL) {
        self.id = id
        self.title = title
        self.summary = summary
        self.iconURL = iconURL
        self.category = category
        self.url = url
    }

    /// The card for the document's card, or `nil` when its `url` is no URL (the document says
    /// `format: uri`; the launcher only serves registered URLs).
    init?(_ card: Components.Schemas.Card) {
        guard let url = URL(string: card.url) else { return nil }
        self.init(
            id: card.id, title: card.title, summary: card.summary,
            iconURL: card.iconURL.flatMap(URL.init(string:)), category: card.category, url: url
        )
    }
}
