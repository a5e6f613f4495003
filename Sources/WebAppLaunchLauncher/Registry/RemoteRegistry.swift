import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import WebAppRegistry

/// A registry served by a CMS at a URL (`--registry https://…`): fetched with
/// `If-None-Match`, the last good copy kept (``RegistryFetchState``).
///
/// The URL must be https, or http on a loopback host only (``RegisteredURL/hasLoopbackHost(_:)``):
/// the registry decides where users' tokens are sent, so it must not be replaceable on the
/// network. Each fetch is bounded in time and in size, and redirects are not followed (give
/// the final URL). ``fetch()`` is the loader a ``ReloadableConfiguration`` calls on SIGHUP and
/// on its interval; the first fetch at startup must succeed.
public final class RemoteRegistry: Sendable {
    /// The largest registry body read by default, in bytes.
    public static let defaultMaximumBytes = 1024 * 1024

    /// The registry's URL.
    public let url: URL
    private let client: HTTPClient
    private let timeout: Duration
    private let maximumBytes: Int
    /// The last good copy; a fetch reads it, asks, and updates it under the lock.
    private let state = Mutex(RegistryFetchState())

    /// Whether a registry URL is acceptable: https, or http on a loopback host; no user
    /// information or fragment.
    /// - Parameter url: The URL.
    /// - Returns: `true` when it may be fetched.
    public static func isAcceptable(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), url.host != nil, url.user == nil, url.password == nil, url.fragment == nil
        else { return false }
        return scheme == "https" || (scheme == "http" && RegisteredURL.hasLoopbackHost(url.absoluteString))
    }

    /// - Parameters:
    ///   - url: The registry's URL (``isAcceptable(_:)``).
    ///   - client: An HTTP client that does not follow redirects.
    ///   - timeout: The longest one fetch may take, connection included.
    ///   - maximumBytes: The largest body read; a larger one is refused.
    /// - Throws: ``RegistryFetchError`` for an unacceptable URL.
    public init(url: URL, client: HTTPClient, timeout: Duration = .seconds(10), maximumBytes: Int = defaultMaximumBytes) throws(RegistryFetchError) {
        guard Self.isAcceptable(url) else {
            throw RegistryFetchError("the registry URL must be https (http only on loopback)")
        }
        self.url = url
        self.client = client
        self.timeout = timeout
        self.maximumBytes = maximumBytes
    }

    /// Fetches the registry: the new one, or the last good copy when the CMS answers 304.
    /// - Returns: The registry.
    /// - Throws: ``RegistryFetchError`` when the CMS cannot be asked, answers anything but
    ///   200 with a valid registry or 304, or sends too much; the last good copy stays.
    public func fetch() async throws(RegistryFetchError) -> Registry {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        if let etag = state.withLock({ $0.ifNoneMatch }) {
            request.headers.add(name: "If-None-Match", value: etag)
        }
        let status: Int
        let etag: String?
        let body: Data
        do {
            let response = try await client.execute(request, timeout: TimeAmount(timeout))
            status = Int(response.status.code)
            etag = response.headers.first(name: "ETag")
            body = Data((try await response.body.collect(upTo: maximumBytes)).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw RegistryFetchError("the CMS sent more than \(maximumBytes) bytes")
        } catch {
            throw RegistryFetchError("the CMS could not be asked (\(type(of: error)))")
        }
        return try state.withLock { state throws(RegistryFetchError) in
            try state.received(status: status, etag: etag, body: body)
        }
    }
}
