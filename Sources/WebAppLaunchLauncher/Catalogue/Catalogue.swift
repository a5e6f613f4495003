import Foundation
import WebAppLaunch
import WebAppRegistry

/// The catalogue as served: the document's `Catalogue` (generated from `openapi.yaml`), with a
/// strong ETag over the bytes sent.
///
/// The registry does not change while a ``LauncherService`` lives, so the cards and their
/// validator are computed once; a client that sends the ETag back in `If-None-Match` gets 304
/// and no body.
public struct Catalogue: Sendable {
    /// The cards, in registry order.
    let document: Components.Schemas.Catalogue
    /// `{"apps": [...]}`, exactly as the launcher sends it (``LauncherAPI/encoder``, the
    /// encoding the generated server is configured with).
    public let body: Data
    /// A strong entity tag: the quoted, hex SHA-256 of ``body`` (first 128 bits).
    public let etag: String

    /// Makes the cards of a registry.
    /// - Parameter registry: The registered apps.
    public init(registry: Registry) {
        document = Components.Schemas.Catalogue(apps: registry.apps.map { app in
            Components.Schemas.Card(
                id: app.id,
                title: app.title,
                summary: app.summary,
                iconURL: app.iconURL?.absoluteString,
                category: app.category,
                url: app.url.description
            )
        })
        body = (try? LauncherAPI.encoder.encode(document)) ?? Data(#"{"apps":[]}"#.utf8)
        let digest = (try? SHA256.hash(Array(body))) ?? []
        etag = "\"" + digest.prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// Whether an `If-None-Match` header value matches this catalogue (RFC 9110 section
    /// 13.1.2: weak comparison, a list, or `*`).
    /// - Parameter ifNoneMatch: The header values.
    /// - Returns: `true` when 304 Not Modified is the answer.
    public func isMatched(byIfNoneMatch ifNoneMatch: [String]) -> Bool {
        for value in ifNoneMatch {
            for candidate in value.split(separator: ",") {
                var tag = candidate.trimmingCharacters(in: .whitespaces)
                if tag == "*" { return true }
                if tag.hasPrefix("W/") { tag.removeFirst(2) }
                if tag == etag { return true }
            }
        }
        return false
    }
}
