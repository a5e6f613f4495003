import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession
import Synchronization
import WebAppRegistry
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The native app's client of the launcher service (`webapp-launch launcher`): the catalogue
/// and launches, async: the client generated from `openapi.yaml` over URLSession
/// (swift-openapi-urlsession), behind a typed API.
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
    /// The base URL without trailing slashes, as the generated client appends paths.
    private let serverURL: URL
    private let session: URLSession
    /// The generated client's transport, over ``session``.
    private let transport: URLSessionTransport
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
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let serverURL = URL(string: base) else { throw .insecureBaseURL }
        self.baseURL = baseURL
        self.serverURL = serverURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        session = URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
        transport = URLSessionTransport(configuration: .init(session: session))
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// The registered apps as cards.
    /// - Returns: The cards, in the launcher's order.
    /// - Throws: ``LauncherClientError``.
    public func catalogue() async throws(LauncherClientError) -> [LauncherCard] {
        let cached = cachedCatalogue.withLock { $0 }
        // The ETag goes out as received: the generated layer would URI-encode its quotes.
        let output = try await call(headers: cached.map { [.ifNoneMatch: $0.etag] } ?? [:]) { try await $0.getCatalogue() }
        switch output {
        case .ok(let ok):
            guard case .json(let body) = ok.body else { throw .invalidResponse }
            let cards = body.apps.compactMap(LauncherCard.init)
            guard cards.count == body.apps.count else { throw .invalidResponse }
            cachedCatalogue.withLock { $0 = (ok.headers.eTag, cards) }
            return cards
        case .notModified:
            guard let cached else { throw .invalidResponse }
            return cached.cards
        case .undocumented(let status, _):
            throw Self.error(status: status, code: nil, retryAfterSeconds: nil)
        }
    }

    /// Asks the launcher for a launch of an app for the user the token belongs to.
    /// - Parameters:
    ///   - appID: The card's ``LauncherCard/id``.
    ///   - accessToken: The user's OAuth access token.
    /// - Returns: The launch URL and its expiry.
    /// - Throws: ``LauncherClientError``.
    public func launchURL(for appID: String, accessToken: String) async throws(LauncherClientError) -> LauncherLaunch {
        let output = try await call(headers: [.authorization: "Bearer " + accessToken]) {
            try await $0.createLaunch(body: .json(.init(app: appID)))
        }
        switch output {
        case .created(let created):
            guard case .json(let body) = created.body, let launch = LauncherLaunch(body) else { throw .invalidResponse }
            return launch
        case .unauthorized(let answer): throw Self.error(status: 401, code: try? answer.body.json.error)
        case .forbidden(let answer): throw Self.error(status: 403, code: try? answer.body.json.error)
        case .notFound(let answer): throw Self.error(status: 404, code: try? answer.body.json.error)
        case .contentTooLarge(let answer): throw Self.error(status: 413, code: try? answer.body.json.error)
        case .unsupportedMediaType(let answer): throw Self.error(status: 415, code: try? answer.body.json.error)
        case .unprocessableContent(let answer): throw Self.error(status: 422, code: try? answer.body.json.error)
        case .tooManyRequests(let answer):
            throw Self.error(status: 429, code: try? answer.body.json.error, retryAfterSeconds: answer.headers.retryAfter)
        case .internalServerError(let answer): throw Self.error(status: 500, code: try? answer.body.json.error)
        case .serviceUnavailable(let answer):
            throw Self.error(status: 503, code: try? answer.body.json.error, retryAfterSeconds: answer.headers.retryAfter)
        case .undocumented(let status, _):
            throw Self.error(status: status, code: nil, retryAfterSeconds: nil)
        }
    }

    /// Runs one call of the generated client with header fields set as given (``VerbatimHeaders``:
    /// the bearer token of the document's security scheme, an ETag); a failure with an answer
    /// is ``LauncherClientError/invalidResponse`` (the answer was not the document's), one
    /// without is a transport error.
    private func call<Output>(
        headers: HTTPFields,
        _ operation: (Client) async throws -> Output
    ) async throws(LauncherClientError) -> Output {
        let client = Client(
            serverURL: serverURL, configuration: Self.configuration, transport: transport,
            middlewares: [VerbatimHeaders(fields: headers)]
        )
        do {
            return try await operation(client)
        } catch let error as ClientError {
            if error.response != nil { throw .invalidResponse }
            throw .transport(description: (error.underlyingError as NSError).localizedDescription)
        } catch {
            throw .transport(description: (error as NSError).localizedDescription)
        }
    }

    /// The generated client's encoding, as the launcher's.
    private static let configuration = Configuration(jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])

    private static func error(status: Int, code: String?, retryAfterSeconds: Int? = nil) -> LauncherClientError {
        let code = code ?? "unknown"
        switch status {
        case 401: return .invalidToken
        case 403: return .forbidden(code: code)
        case 404: return .unknownApp
        case 413, 415, 422: return .invalidRequest(code: code)
        case 429: return .rateLimited(retryAfterSeconds: retryAfterSeconds)
        case 500...599: return .unavailable(status: status)
        default: return .invalidResponse
        }
    }
}

/// Sets header fields on a request as they are: `Authorization: Bearer …` (the document's
/// `bearer` security scheme, which the generated client leaves to a middleware) and
/// `If-None-Match` (whose quotes the generated layer would URI-encode).
private struct VerbatimHeaders: ClientMiddleware {
    let fields: HTTPFields

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        for field in fields { request.headerFields[field.name] = field.value }
        return try await next(request, body, baseURL)
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
