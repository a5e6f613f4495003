import Foundation

/// One card of the launcher's catalogue, as the native app shows it.
public struct LauncherCard: Sendable, Hashable, Codable, Identifiable {
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

    /// Creates a card (the client decodes them; this is for previews and tests).
    public init(id: String, title: String, summary: String, iconURL: URL?, category: String, url: URL) {
        self.id = id
        self.title = title
        self.summary = summary
        self.iconURL = iconURL
        self.category = category
        self.url = url
    }
}

/// The catalogue response: `{"apps": [...]}`.
struct LauncherCatalogueBody: Decodable {
    let apps: [LauncherCard]
}
