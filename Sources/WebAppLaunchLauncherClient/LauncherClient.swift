import Foundation
import WebAppRegistry
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The native app's client of the launcher service (`webapp-launch launcher`): the catalogue
/// and launches, over URLSession, async.
///
/// ```swift
/// let launcher = try LauncherClient(baseURL: URL(string: "https://launcher.example-insurer.de")!)
/// let cards = try await launcher.catalogue()
/// let launch = try await launcher.launchURL(for: cards[0].id, accessToken: session.accessToken)
/// webView.load(URLRequest(url: launch.url))
/// ```
///
/// The app sends its access token and an app id, nothing else: the launcher takes the
/// user's names and KVNR from the identity provider. The token must be one the provider
/// issued to the native app's client for the launcher's audience (ask for that audience or
/// resource when logging in); the launcher refuses any other (401). The launch it returns
/// does not carry this token: the web app receives one issued for it alone, or none. The client follows no redirects (a
/// redirect would carry the bearer token elsewhere) and remembers the catalogue's ETag, so a
/// catalogue that did not change costs a 304 and no body.
public final class LauncherClient: Sendable {
    /// The launcher's base URL (`/v1/…` is appended).
    public let baseURL: URL
    private let session: URLSession
    // The last catalogue and its ETag; replaced whole under the lock.
    private let cachedCatalogue = Mutex<(etag: String, cards: [LauncherCard])?>(nil)

    /// Creates a client.
    /// - Parameters:
    ///   - baseURL: The launcher, https (http only on a loopback host, for development).
    ///   - timeout: The longest one request may take.
    /// - Throws: ``LauncherClientError/insecureBaseURL``.
    public init(baseURL: URL, timeout: TimeInterval = 15) throws(LauncherClientError) {
        guard let scheme = baseURL.scheme?.lowercased(), baseURL.host != nil, baseURL.user == nil else {
            throw .insecureBaseURL
        }
        // Loopback is decided on the parsed host, as everywhere in the package:
        // `http://127.evil.example/` is a DNS name and would carry the user's token in clear.
        guard scheme == "https" || (scheme == "http" && RegisteredURL.hasLoopbackHost(baseURL.absoluteString)) else {
            throw .insecureBaseURL
        }
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        session = URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// The registered apps as cards.
    /// - Returns: The cards, in the launcher's order.
    /// - Throws: ``LauncherClientError``.
    public func catalogue() async throws(LauncherClientError) -> [LauncherCard] {
        var request = URLRequest(url: endpoint("v1/catalogue"))
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let cached = cachedCatalogue.withLock { $0 }
        if let cached { request.setValue(cached.etag, forHTTPHeaderField: "If-None-Match") }
        let (data, response) = try await send(request)
        if response.statusCode == 304, let cached { return cached.cards }
        guard response.statusCode == 200 else { throw Self.error(for: response, data: data) }
        guard let body = try? JSONDecoder().decode(LauncherCatalogueBody.self, from: data) else { throw .invalidResponse }
        if let etag = response.value(forHTTPHeaderField: "ETag") {
            cachedCatalogue.withLock { $0 = (etag, body.apps) }
        }
        return body.apps
    }

    /// Asks the launcher for a launch of an app for the user the token belongs to.
    /// - Parameters:
    ///   - appID: The card's ``LauncherCard/id``.
    ///   - accessToken: The user's OAuth access token.
    /// - Returns: The launch URL and its expiry.
    /// - Throws: ``LauncherClientError``.
    public func launchURL(for appID: String, accessToken: String) async throws(LauncherClientError) -> LauncherLaunch {
        var request = URLRequest(url: endpoint("v1/launches"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("Bearer " + accessToken, forHTTPHeaderField: "Authorization")
        guard let body = try? JSONEncoder().encode(["app": appID]) else { throw .invalidResponse }
        request.httpBody = body
        let (data, response) = try await send(request)
        guard response.statusCode == 201 else { throw Self.error(for: response, data: data) }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let launch = try? decoder.decode(LauncherLaunch.self, from: data) else { throw .invalidResponse }
        return launch
    }

    private func endpoint(_ path: String) -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + "/" + path)!
    }

    private func send(_ request: URLRequest) async throws(LauncherClientError) -> (Data, HTTPURLResponse) {
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw .transport(description: (error as NSError).localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw .invalidResponse }
        return (data, http)
    }

    private struct ErrorBody: Decodable {
        let error: String
    }

    private static func error(for response: HTTPURLResponse, data: Data) -> LauncherClientError {
        let code = (try? JSONDecoder().decode(ErrorBody.self, from: data))?.error ?? "unknown"
        switch response.statusCode {
        case 401: return .invalidToken
        case 403: return .forbidden(code: code)
        case 404: return .unknownApp
        case 413, 415, 422: return .invalidRequest(code: code)
        case 429: return .rateLimited(retryAfterSeconds: response.value(forHTTPHeaderField: "Retry-After").flatMap(Int.init))
        case 500...599: return .unavailable(status: response.statusCode)
        default: return .invalidResponse
        }
    }
}

/// Refuses every redirect: the launcher never redirects, and following one would send the
/// bearer token to wherever it points.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
