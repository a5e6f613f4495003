import Foundation
import WebAppLaunch
import WebAppRegistry

/// The catalogue as served: the cards, encoded once, with a strong ETag over the bytes.
///
/// The registry does not change while the launcher runs, so the body and its validator are
/// computed once; a client that sends the ETag back in `If-None-Match` gets 304 and no body.
public struct Catalogue: Sendable {
    /// The cards, in registry order.
    public let cards: [CatalogueCard]
    /// `{"apps": [...]}`, as sent.
    public let body: Data
    /// A strong entity tag: the quoted, hex SHA-256 of ``body`` (first 128 bits).
    public let etag: String

    /// Encodes a registry's cards.
    /// - Parameter registry: The registered apps.
    public init(registry: Registry) {
        cards = registry.apps.map(CatalogueCard.init)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        body = (try? encoder.encode(["apps": cards])) ?? Data(#"{"apps":[]}"#.utf8)
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
