import Foundation
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppRegistry

/// Everything the gate needs: which app it guards, at which public URL, with which keys, and
/// what it does with a request that has a session.
public struct GateConfiguration: Sendable {
    /// What the gate does once a request has a valid session.
    public enum Mode: Sendable, Hashable {
        /// Reverse proxy: forward the request to this upstream with the identity headers.
        case reverseProxy(upstream: GateUpstream)
        /// nginx `auth_request`: answer `GET /auth` with 202 and the identity headers (401
        /// without a session); every other path exchanges launches for the session cookie.
        case authRequest
    }

    /// The app id launches must name.
    public var appID: String
    /// The public URL users reach the app at: the launch audience, and the session cookie's
    /// path and `Secure` flag. Never taken from `Host` or `X-Forwarded-*`.
    public var publicURL: RegisteredURL
    /// The keyring (for a partner: its app keyring).
    public var keyring: Keyring
    /// Reverse proxy or auth_request.
    public var mode: Mode
    /// Address to bind.
    public var host: String = "127.0.0.1"
    /// Port to bind (0: any free port).
    public var port: Int = 4180
    /// Clock skew and maximum launch lifetime.
    public var policy = VerificationPolicy()
    /// Seconds a session lasts.
    public var sessionLifetime: UInt64 = 1800
    /// Whether the access token is passed upstream in `X-WebApp-Launch-Access-Token`. Off by
    /// default: a bearer token in every request header ends up in upstream logs too easily.
    public var passAccessToken = false
    /// Where a request without a session is sent (303) instead of getting 401; `nil` for 401.
    /// Applies to GET and HEAD requests without a `launch` parameter only. A path on the same
    /// site (``RedirectTarget``), never another host.
    public var unauthenticatedRedirect: RedirectTarget?

    /// What a request without a session gets, decided once by the launch verification: the
    /// 401 page, or the 303 to ``unauthenticatedRedirect`` (never for `/auth` in the
    /// auth_request shape: nginx must see its 401).
    public var unauthenticatedPolicy: UnauthenticatedPolicy {
        guard let unauthenticatedRedirect else { return .rejectionPage }
        let exempt = mode == .authRequest ? [AuthRequestEndpoint<WebAppRequestContext>.path] : []
        return .redirect(to: unauthenticatedRedirect, except: exempt)
    }
    /// The largest request body forwarded upstream; larger ones get 413.
    public var maximumRequestBodyBytes = 10 * 1024 * 1024
    /// The largest response body passed back; a larger announced one gives 502, a larger
    /// streamed one is cut off.
    public var maximumResponseBodyBytes = 100 * 1024 * 1024
    /// How long connecting to the upstream may take (then 504).
    public var connectTimeout: Duration = .seconds(5)
    /// How long the upstream may take to send its response head (then 504).
    public var responseTimeout: Duration = .seconds(30)
    /// How long the upstream may stay silent while it sends a body.
    public var readTimeout: Duration = .seconds(30)
    /// How long an idle client connection is kept.
    public var idleTimeout: Duration = Self.defaultIdleTimeout
    /// ``idleTimeout``'s default, which the printed nginx configuration also keeps below.
    public static let defaultIdleTimeout: Duration = .seconds(75)
    /// How long an upstream connection is kept idle for reuse: shorter than the app server's
    /// own keep-alive timeout (Node, uvicorn and Apache: 5 s), so the gate ends it first and
    /// no request meets the upstream closing it (a POST would get 502; it is never sent twice).
    public var upstreamIdleTimeout: Duration = Self.defaultUpstreamIdleTimeout
    /// ``upstreamIdleTimeout``'s default, which nginx keeps to the app in the printed configuration too.
    public static let defaultUpstreamIdleTimeout: Duration = .seconds(4)
    /// Who vouches for an `https` upstream's certificate (``UpstreamTrust``): the machine's
    /// store by default, or only the authorities of `--upstream-ca-file`.
    public var upstreamTrust: UpstreamTrust = .system
    /// How many connections the gate keeps open to the upstream at once. Requests beyond
    /// them wait for a free one, so this caps the upstream's concurrency; the HTTP client's
    /// own default (8) would hold a busy app far below what its clients ask for.
    public var maximumUpstreamConnections = 64
    /// How many requests of one session may be upstream at once; more get 429 at once. Keeps
    /// one user (many slow downloads) from holding every upstream connection while everyone
    /// else waits for 504.
    public var maximumUpstreamConnectionsPerSession = 8
    /// A response announcing at most this many bytes is read whole from the upstream before
    /// the client gets it, so the upstream connection is free again however slowly the client
    /// reads; larger ones stream.
    public var responseBufferBytes = 256 * 1024
    /// How long a client may take to accept each chunk of a streamed response before the
    /// response ends (the write deadline toward clients): a client that stops reading does not
    /// keep an upstream connection.
    public var clientWriteTimeout: Duration = .seconds(30)
    /// Whether the hot requests of each shape are answered on the connection's event loop
    /// rather than through Hummingbird's request path: the same decision either way, with less
    /// CPU per request (BENCHMARKS.md has the A/B figures). In the reverse-proxy shape, a GET
    /// with a live session relayed over an idle upstream connection, one of the same loop
    /// first (``ProxyFastPathRoute``); in the auth_request shape, nginx's `GET /auth` check
    /// with a live session (``AuthRequestFastPathRoute``). `--no-event-loop-answers` turns it
    /// off (to compare the two).
    public var answersOnEventLoop = true
    /// Where the gate's metrics are served (``MetricsEndpoint``: `GET /metrics`, Prometheus
    /// text), never on its public listener; `nil` (the default) for none.
    public var metrics: MetricsListener?
    /// The current time (injectable in tests).
    public var clock: @Sendable () -> Date = { Date() }

    /// Creates a configuration with the defaults above.
    /// - Parameters:
    ///   - appID: The app id.
    ///   - publicURL: The public URL.
    ///   - keyring: The keyring.
    ///   - mode: Reverse proxy or auth_request.
    public init(appID: String, publicURL: RegisteredURL, keyring: Keyring, mode: Mode) {
        self.appID = appID
        self.publicURL = publicURL
        self.keyring = keyring
        self.mode = mode
    }

    /// Checks the settings that could make the gate unsafe or unusable.
    /// - Throws: ``ConfigurationError`` with one line.
    public func validate() throws(ConfigurationError) {
        guard WebApp.isValidID(appID) else { throw ConfigurationError("--app is not a valid app id") }
        guard (0...65535).contains(port) else { throw ConfigurationError("--port must be 1 to 65535") }
        try DevelopmentKeyPolicy.check(keyring, bindHost: host, publicURLs: [publicURL])
        // A partner holds its app keyring only; root secrets could mint for every app. The
        // development keyring (public, loopback only) is the one launcher keyring allowed.
        guard keyring.appID != nil || keyring.isDevelopment else {
            throw ConfigurationError("the gate needs an app keyring (keygen --export-app): a launcher keyring holds root secrets that can mint for every app")
        }
        guard keyring.keys.contains(where: { $0.status != .revoked }) else {
            throw ConfigurationError("the keyring has no key that can verify")
        }
        guard maximumUpstreamConnectionsPerSession >= 1, responseBufferBytes >= 0 else {
            throw ConfigurationError("the per-session upstream bound must be at least 1 and the response buffer not negative")
        }
        guard maximumRequestBodyBytes >= 0, maximumResponseBodyBytes >= 0 else {
            throw ConfigurationError("body limits must not be negative")
        }
        guard upstreamIdleTimeout > .zero else {
            throw ConfigurationError("the upstream idle timeout must be positive")
        }
        if case .certificateAuthorities = upstreamTrust {
            // Trusted authorities for a connection that has no TLS would read as a promise
            // the gate does not keep.
            guard case .reverseProxy(let upstream) = mode, upstream.scheme == "https" else {
                throw ConfigurationError("--upstream-ca-file needs an https:// --upstream: an http:// upstream is not authenticated")
            }
        }
    }
}
