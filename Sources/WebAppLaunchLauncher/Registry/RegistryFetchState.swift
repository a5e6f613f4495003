import Foundation
import WebAppRegistry

/// The decisions of fetching a registry from a CMS, as a value: what to ask (`If-None-Match`
/// with the last good copy's `ETag`) and what an answer means.
///
/// The last good copy is kept whatever happens after it: a CMS that is down, slow, answers
/// 5xx, sends more than the size bound or sends something that is not a valid registry
/// changes nothing, and the fetch is an error the reload logs and counts. Nothing here does
/// I/O; ``RemoteRegistry`` performs the requests.
public struct RegistryFetchState: Sendable {
    /// The last registry that parsed and validated, with its entity tag.
    public private(set) var lastGood: (registry: Registry, etag: String?)?

    /// Creates a state with no copy yet.
    public init() {}

    /// The `If-None-Match` value to send: the last good copy's `ETag`, if it had one.
    public var ifNoneMatch: String? { lastGood?.etag }

    /// What an answer means.
    /// - Parameters:
    ///   - status: The HTTP status.
    ///   - etag: The `ETag` header, if any.
    ///   - body: The body (already bounded by the caller).
    /// - Returns: The registry to use now.
    /// - Throws: ``RegistryFetchError`` for anything but a valid registry or a 304 with a
    ///   copy in hand; the state is unchanged then.
    public mutating func received(status: Int, etag: String?, body: Data) throws(RegistryFetchError) -> Registry {
        switch status {
        case 304:
            guard let lastGood else { throw RegistryFetchError("the CMS answered 304 without a registry in hand") }
            return lastGood.registry
        case 200:
            let registry: Registry
            do {
                registry = try Registry(json: body)
            } catch {
                throw RegistryFetchError("the CMS sent an invalid registry: \(error)")
            }
            lastGood = (registry, etag.flatMap { $0.isEmpty ? nil : $0 })
            return registry
        default:
            throw RegistryFetchError("the CMS answered \(status)")
        }
    }
}

/// Why a registry could not be fetched; one line, no secrets (never the URL's query).
public struct RegistryFetchError: Error, CustomStringConvertible, Sendable {
    /// The reason.
    public let reason: String
    /// - Parameter reason: The reason.
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
