import Foundation
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppRegistry

/// Everything `webapp-launch launcher` is configured with, checked by the CLI, turned into a
/// running launcher by ``LauncherApplication``.
///
/// The keyring and the registry are read here and nowhere else: the signer, the catalogue and
/// the development-key guard all come from these two values.
public struct LauncherConfiguration: Sendable {
    /// How the launcher confirms that an access token is the native app's.
    public enum TokenConfirmation: Sendable {
        /// OpenID Connect userinfo at the issuer's discovery document (development: it cannot
        /// tell which client a token was issued to).
        case userinfo
        /// RFC 7662 introspection with the launcher's own client credentials.
        case introspection(endpoint: URL, clientID: String, clientSecret: String)
        /// RFC 9068 JWT access tokens, verified locally against the issuer's key set.
        case jwtAccessTokens(jwksURL: URL)
    }

    /// The RFC 8693 token exchange for apps whose entry asks for a partner token.
    public struct TokenExchange: Sendable {
        /// The provider's token endpoint.
        public var endpoint: URL
        /// The launcher's client id.
        public var clientID: String
        /// The launcher's client secret.
        public var clientSecret: String

        /// Creates the exchange settings.
        public init(endpoint: URL, clientID: String, clientSecret: String) {
            self.endpoint = endpoint
            self.clientID = clientID
            self.clientSecret = clientSecret
        }
    }

    /// The address to bind.
    public var host: String
    /// The port to bind (0: any free port).
    public var port: Int
    /// The launcher keyring (root secrets).
    public var keyring: Keyring
    /// The registered apps.
    public var registry: Registry
    /// The OpenID issuer.
    public var issuer: URL
    /// How tokens are confirmed.
    public var tokenConfirmation: TokenConfirmation
    /// Which client and audience a token must have been issued to (introspection, JWT).
    public var policy: NativeAppTokenPolicy
    /// The token exchange, if any app needs one.
    public var tokenExchange: TokenExchange?
    /// Whose token a launch carries.
    public var tokenForwarding: AccessTokenForwarding
    /// Where names and KVNR are read, and the scopes required.
    public var claims: ClaimMapping
    /// How long a provider answer is reused (zero: never).
    public var userinfoCacheLifetime: Duration
    /// Launches per subject per minute (burst of the same size).
    public var launchesPerMinute: Int
    /// How long to wait for the identity provider.
    public var providerTimeout: Duration
    /// Identity provider requests in flight at once.
    public var maximumProviderRequests: Int
    /// How long a client connection may stay silent before the launcher closes it (as
    /// `serve` and the gate do: a silent connection is never held for ever).
    public var idleTimeout: Duration
    /// Where the launcher's metrics are served (`MetricsEndpoint`: `GET /metrics`, Prometheus
    /// text: launches minted by app, refused by code), never on its own listener; `nil` (the
    /// default) for none.
    public var metrics: MetricsListener? = nil

    /// Creates a configuration; the defaults are the CLI's.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8090,
        keyring: Keyring,
        registry: Registry,
        issuer: URL,
        tokenConfirmation: TokenConfirmation = .userinfo,
        policy: NativeAppTokenPolicy = NativeAppTokenPolicy(clientIDs: [], audience: ""),
        tokenExchange: TokenExchange? = nil,
        tokenForwarding: AccessTokenForwarding = .asRegistered,
        claims: ClaimMapping = ClaimMapping(),
        userinfoCacheLifetime: Duration = .seconds(30),
        launchesPerMinute: Int = 10,
        providerTimeout: Duration = .seconds(5),
        maximumProviderRequests: Int = 256,
        idleTimeout: Duration = .seconds(30)
    ) {
        self.host = host
        self.port = port
        self.keyring = keyring
        self.registry = registry
        self.issuer = issuer
        self.tokenConfirmation = tokenConfirmation
        self.policy = policy
        self.tokenExchange = tokenExchange
        self.tokenForwarding = tokenForwarding
        self.claims = claims
        self.userinfoCacheLifetime = userinfoCacheLifetime
        self.launchesPerMinute = launchesPerMinute
        self.providerTimeout = providerTimeout
        self.maximumProviderRequests = maximumProviderRequests
        self.idleTimeout = idleTimeout
    }
}
