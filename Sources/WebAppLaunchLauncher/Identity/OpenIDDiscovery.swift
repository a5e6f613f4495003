import AsyncHTTPClient
import Foundation
import NIOHTTP1
import Synchronization

/// The parts of an OpenID Provider's discovery document the launcher uses.
public struct OpenIDConfiguration: Sendable, Hashable {
    /// The issuer, exactly as the provider states it (it must equal the configured issuer).
    public let issuer: String
    /// Where userinfo is asked.
    public let userInfoEndpoint: URL
    /// Where RFC 7662 introspection is asked, if the provider offers it.
    public let introspectionEndpoint: URL?
}

/// Fetches `issuer/.well-known/openid-configuration` and keeps it for a while.
///
/// The document is cached because it changes rarely and every launch needs it; a failed
/// fetch is not cached, so the next launch tries again. The document must name the
/// configured issuer (OpenID Connect Discovery 1.0, section 4.3), which stops a misrouted
/// or spoofed document from sending tokens elsewhere, and its endpoints must use https
/// unless the issuer itself is a loopback http URL (development).
final class OpenIDDiscovery: Sendable {
    let issuer: URL
    private let http: ProviderHTTP
    private let lifetime: Duration
    // The cached document and when it was fetched; read and replaced under the lock only.
    private let cached = Mutex<(configuration: OpenIDConfiguration, fetchedAt: ContinuousClock.Instant)?>(nil)

    init(issuer: URL, http: ProviderHTTP, lifetime: Duration) {
        self.issuer = issuer
        self.http = http
        self.lifetime = lifetime
    }

    /// The issuer as compared with the document's `issuer`: no trailing slash.
    var normalisedIssuer: String {
        var text = issuer.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The provider's configuration, from the cache when fresh.
    func configuration() async throws(IdentityProviderError) -> OpenIDConfiguration {
        let now = ContinuousClock.now
        if let entry = cached.withLock({ $0 }), entry.fetchedAt.duration(to: now) < lifetime {
            return entry.configuration
        }
        var request = HTTPClientRequest(url: normalisedIssuer + "/.well-known/openid-configuration")
        request.headers.add(name: "Accept", value: "application/json")
        let answer = try await http.send(request)
        guard answer.status == 200, let object = answer.object else {
            throw .unavailable(reason: "the discovery document could not be read (status \(answer.status))")
        }
        guard let stated = object["issuer"] as? String, Self.trimmed(stated) == normalisedIssuer else {
            throw .unavailable(reason: "the discovery document names another issuer")
        }
        guard let userInfo = (object["userinfo_endpoint"] as? String).flatMap(URL.init(string:)), acceptable(userInfo) else {
            throw .unavailable(reason: "the discovery document has no acceptable userinfo_endpoint")
        }
        let introspection = (object["introspection_endpoint"] as? String).flatMap(URL.init(string:)).flatMap { acceptable($0) ? $0 : nil }
        let configuration = OpenIDConfiguration(issuer: stated, userInfoEndpoint: userInfo, introspectionEndpoint: introspection)
        cached.withLock { $0 = (configuration, now) }
        return configuration
    }

    /// Forgets the cached document (after the provider stops answering at its endpoints, the
    /// next launch fetches it anew).
    func forget() {
        cached.withLock { $0 = nil }
    }

    private func acceptable(_ endpoint: URL) -> Bool {
        guard let scheme = endpoint.scheme?.lowercased(), endpoint.host != nil else { return false }
        if scheme == "https" { return true }
        return scheme == "http" && issuer.scheme?.lowercased() == "http" && IssuerURL.isLoopback(endpoint)
    }

    private static func trimmed(_ text: String) -> String {
        var text = text
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
