import HTTPTypes
import WebAppLaunch

/// What a request is to the launch exchange: the one decision "is this a launch", made the
/// same way by every entry point (the middleware in `serve` or any Hummingbird app, the
/// gate's reverse proxy, the gate's nginx `auth_request` endpoint, and the nginx
/// configuration the gate prints, whose routing mirrors it).
///
/// A `launch` piece (`launch=…` or a bare `launch`, byte for byte: ``LaunchParameters``) is
/// consumed only where a browser sends one: a GET whose query carries it, or a form POST
/// (`application/x-www-form-urlencoded`) to one of the app's own paths, in its query or its
/// form. Anywhere else (HEAD, OPTIONS, PUT, DELETE, a JSON POST, a form POST to another path)
/// the request is refused and the launch stays unclaimed: a link preview's HEAD must not use
/// up the user's launch, and the token must never reach the app behind a gate.
public enum LaunchRequestKind: Sendable, Hashable {
    /// A GET whose query carries `launch`: exchanged.
    case queryLaunch
    /// A form POST to one of the app's own paths: exchanged when its query or its form
    /// carries `launch` (the form is read up to ``LaunchVerificationMiddleware/maximumFormBytes``).
    case formPost
    /// A `launch` piece where launches are not taken: refused (400), never claimed, never
    /// passed on.
    case misplacedLaunch
    /// No launch: the session decides.
    case other

    /// Classifies a request from its method, raw path, raw query and content type.
    /// - Parameters:
    ///   - method: The request method.
    ///   - path: The raw path (no query), as sent.
    ///   - query: The raw query without `?`, or `nil`.
    ///   - contentType: The `Content-Type` value, or `nil`.
    ///   - appPaths: The paths of the app's registered URLs (its audiences).
    public init(method: HTTPRequest.Method, path: Substring, query: Substring?, contentType: String?, appPaths: [String]) {
        let inQuery = LaunchParameters.carriesLaunch(query)
        if method == .post, Self.isForm(contentType), appPaths.contains(where: { path.utf8.elementsEqual($0.utf8) }) {
            self = .formPost
        } else if inQuery {
            self = method == .get ? .queryLaunch : .misplacedLaunch
        } else {
            self = .other
        }
    }

    /// Classifies a request target (`/path?query`) as it appears on the request line.
    /// - Parameters:
    ///   - method: The request method.
    ///   - target: The raw request target.
    ///   - contentType: The `Content-Type` value, or `nil`.
    ///   - appPaths: The paths of the app's registered URLs.
    public init(method: HTTPRequest.Method, target: Substring, contentType: String?, appPaths: [String]) {
        let bytes = target.utf8
        if let mark = bytes.firstIndex(of: UInt8(ascii: "?")) {
            self.init(
                method: method, path: Substring(bytes[..<mark]), query: Substring(bytes[bytes.index(after: mark)...]),
                contentType: contentType, appPaths: appPaths
            )
        } else {
            self.init(method: method, path: target, query: nil, contentType: contentType, appPaths: appPaths)
        }
    }

    /// Whether a request of this kind may carry a launch in a form body the reader has not
    /// seen yet (so a body passed on unread must be scanned with ``LaunchPieceScanner``).
    public var mayCarryLaunchInBody: Bool { self == .formPost }

    /// The media type of a form post, compared case-insensitively as a prefix (parameters
    /// such as `; charset=utf-8` may follow).
    public static let formMediaType = "application/x-www-form-urlencoded"

    static func isForm(_ contentType: String?) -> Bool {
        contentType?.lowercased().hasPrefix(formMediaType) ?? false
    }
}
