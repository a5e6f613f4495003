import Foundation
import WebAppRegistry

/// One card of the catalogue, as the launcher serves it: what the native app shows and
/// which URL it may open.
public struct CatalogueCard: Sendable, Hashable, Codable {
    /// The app id to ask a launch for.
    public let id: String
    /// The card's title.
    public let title: String
    /// The card's description.
    public let summary: String
    /// The icon's URL, if the app has one.
    public let iconURL: String?
    /// The category, for grouping cards.
    public let category: String
    /// The registered URL (the launch's audience), so the app can recognise the page.
    public let url: String

    /// The card for a registered app.
    /// - Parameter app: The registry entry.
    public init(_ app: WebApp) {
        id = app.id
        title = app.title
        summary = app.summary
        iconURL = app.iconURL?.absoluteString
        category = app.category
        url = app.url.description
    }
}
