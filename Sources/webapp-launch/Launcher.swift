import ArgumentParser
import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import WebAppLaunch
import WebAppLaunchLauncher
import WebAppLaunchMiddleware
import WebAppLaunchReload
import WebAppRegistry

extension WebAppLaunchCommand {
    /// Runs the launcher service: the app's backend that mints launches for verified users.
    struct Launcher: AsyncParsableCommand, ListeningCommand {
        static let configuration = CommandConfiguration(
            commandName: "launcher",
            abstract: "Run the launcher service: confirm the app's access token with the identity provider, then mint a launch.",
            discussion: """
            GET /v1/catalogue: the registered apps as cards (ETag, Cache-Control).
            POST /v1/launches with Authorization: Bearer <access token> and {"app": "ID"}: 201 {"url", "expires_at"};
            401 invalid token, 403 missing scope or claim, 404 unknown app, 422 bad body, 429 rate limit,
            503 identity provider unavailable or token exchange failed (nothing is minted).
            Names and KVNR come only from the identity provider (userinfo, RFC 7662 introspection, or RFC 9068 JWT access tokens).
            Only tokens issued to the native app (--accepted-client-id) for the launcher (--audience) are accepted
            (introspection or --jwks-uri; userinfo cannot tell, and needs development keys). A launch carries what
            the app's registry entry says: no token, or one exchanged for that app at --token-endpoint (RFC 8693).
            --client-secret (introspection and token exchange) takes env:NAME, file:PATH or - (standard input):
            never the secret itself on argv.
            Examples:
              webapp-launch launcher --issuer http://127.0.0.1:9400
              webapp-launch launcher --host 0.0.0.0 --keyring /etc/webapp-launch/launcher.keyring.json \\
                  --registry /etc/webapp-launch/registry.json --issuer https://login.example-insurer.de/realms/members \\
                  --kvnr-claim kvnr --rate-limit 20
            """
        )

        @Option(name: .long, help: "Address to bind.")
        var host: String = "127.0.0.1"

        @Option(name: .long, help: "Port to bind (0: any free port, printed).")
        var port: Int = 8090

        @OptionGroup var keyring: KeyringOption
        @OptionGroup var registry: RegistryOption

        @Option(name: .long, help: "OpenID issuer URL (https, or http on loopback); its discovery document names the userinfo endpoint.")
        var issuer: String

        @Option(name: .long, help: "Use RFC 7662 introspection at this endpoint instead of userinfo (needs --client-id and a secret).")
        var introspectionEndpoint: String?

        @Option(name: .long, help: "The launcher's client id for introspection.")
        var clientID: String?

        @Option(name: .long, help: "The launcher's client secret (introspection, token exchange): env:NAME, file:PATH or - (stdin). Default: env:WEBAPP_LAUNCH_CLIENT_SECRET.")
        var clientSecret: String = "env:WEBAPP_LAUNCH_CLIENT_SECRET"

        @Option(name: .long, help: "Verify RFC 9068 JWT access tokens locally against the issuer's key set at this URL (instead of userinfo).")
        var jwksURI: String?

        @Option(name: .long, help: "The native app's OAuth client id: only tokens issued to it are accepted (repeatable).")
        var acceptedClientID: [String] = []

        @Option(name: .long, help: "The launcher's audience at the provider: only tokens naming it in aud are accepted.")
        var audience: String?

        @Option(name: .long, help: "The provider's token endpoint for RFC 8693 token exchange (apps whose entry asks for an exchanged token; needs --client-id and a secret).")
        var tokenEndpoint: String?

        @Flag(name: .long, help: "Development only: put the app's own token into every launch (needs development keys, which are loopback only).")
        var developmentPassThroughToken = false

        @Option(name: .long, help: "Claim holding the first name.")
        var givenNameClaim: String = "given_name"

        @Option(name: .long, help: "Claim holding the last name.")
        var familyNameClaim: String = "family_name"

        @Option(name: .long, help: "Claim holding the KVNR.")
        var kvnrClaim: String = "kvnr"

        @Option(name: .long, help: "A scope every token must carry (repeatable; needs introspection).")
        var requiredScope: [String] = []

        @Option(name: .long, help: "Seconds a provider answer is reused (0 to 300; never past the token's expiry).")
        var userinfoCacheSeconds: Int = 30

        @Option(name: .long, help: "Launches per subject per minute (burst of the same size).")
        var rateLimit: Int = 10

        @Option(name: .long, help: "Seconds to wait for the identity provider before answering 503.")
        var providerTimeout: Int = 5

        @Option(name: .long, help: "Identity provider requests in flight at once; beyond it, 503 without asking the provider.")
        var maxProviderRequests: Int = 256

        @OptionGroup var reloading: ReloadOptions

        @Option(name: .long, help: "Metrics listener HOST:PORT (Prometheus text at /metrics: launches minted by app, refused by code), or none (the default). Never the launcher's own listener.")
        var metricsAddress: String = "none"

        @OptionGroup var idle: IdleTimeoutOption

        @OptionGroup var eventLoops: EventLoopsOption

        @OptionGroup var logging: LogLevelOption

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
            _ = try MetricsAddress.listener(metricsAddress)
            guard let issuerURL = URL(string: issuer), IssuerURL.isAcceptable(issuerURL) else {
                throw ValidationError("--issuer must be an https URL (http only on loopback)")
            }
            if let introspectionEndpoint {
                guard let url = URL(string: introspectionEndpoint), IssuerURL.isAcceptable(url) else {
                    throw ValidationError("--introspection-endpoint must be an https URL (http only on loopback)")
                }
                guard clientID != nil else { throw ValidationError("--introspection-endpoint requires --client-id") }
            }
            if !requiredScope.isEmpty && introspectionEndpoint == nil && jwksURI == nil {
                throw ValidationError("--required-scope needs --introspection-endpoint or --jwks-uri: userinfo does not report scopes")
            }
            try validateTokenBinding()
            guard (0...300).contains(userinfoCacheSeconds) else { throw ValidationError("--userinfo-cache-seconds must be 0 to 300") }
            guard (1...600).contains(rateLimit) else { throw ValidationError("--rate-limit must be 1 to 600") }
            guard (1...30).contains(providerTimeout) else { throw ValidationError("--provider-timeout must be 1 to 30") }
            guard (1...10_000).contains(maxProviderRequests) else { throw ValidationError("--max-provider-requests must be 1 to 10000") }
        }

        func run() async throws {
            try await registry.withSource { try await run(registrySource: $0) }
        }

        private func run(registrySource: RegistrySource) async throws {
            logging.bootstrap()
            // Secrets first: an unreadable env:/file: fails before anything else.
            let secret = try (introspectionEndpoint ?? tokenEndpoint).map { _ in try SecretArgument(clientSecret, option: "--client-secret") }
            let registry = try await registrySource.load()
            // Development keys mint only for loopback apps, on a loopback address.
            let keyring = try keyring.load(bindHost: host, publicURLs: registry.apps.map(\.url))
            let binding = TokenBinding(
                developmentPassThrough: developmentPassThroughToken,
                confirmsClient: introspectionEndpoint != nil || jwksURI != nil,
                exchanges: tokenEndpoint != nil
            )
            try binding.check(keyring: keyring, registry: registry)
            // Everything that can refuse the configuration runs before the HTTP client exists:
            // a client must be shut down before it is released.
            let signer = try LaunchSigner(keyring: keyring, registry: registry)  // not_launcher_keyring: exit 2
            let logger = Logger(label: "webapp-launch.launcher")
            // SIGHUP reads registry and keyring again with every check above.
            let keyringReload = self.keyring.reloader(bindHost: host)
            // The launcher's own metrics from here on: its reloads are counted where its launches are.
            let metrics = ServerMetrics()
            let minting = ReloadableConfiguration(
                name: "keyring+registry", initial: MintingConfiguration(signer: signer), logger: logger, metricsFactory: metrics.factory
            ) {
                let registry = try await registrySource.load()
                let reloaded = try keyringReload(registry.apps.map(\.url))
                guard reloaded.isDevelopment == keyring.isDevelopment else {
                    throw CommandFailure.configuration("the keyring changed between development and production keys: restart to switch")
                }
                try binding.check(keyring: reloaded, registry: registry)
                return MintingConfiguration(signer: try LaunchSigner(keyring: reloaded, registry: registry))
            }
            let confirmation: LauncherConfiguration.TokenConfirmation
            if let introspectionEndpoint, let url = URL(string: introspectionEndpoint), let clientID, let secret {
                confirmation = .introspection(endpoint: url, clientID: clientID, clientSecret: secret.value)
            } else if let jwksURI, let jwksURL = URL(string: jwksURI) {
                confirmation = .jwtAccessTokens(jwksURL: jwksURL)
            } else {
                confirmation = .userinfo
            }
            let exchange = zip(tokenEndpoint.flatMap(URL.init(string:)), clientID, secret).map { endpoint, id, secret in
                LauncherConfiguration.TokenExchange(endpoint: endpoint, clientID: id, clientSecret: secret.value)
            }
            var configuration = LauncherConfiguration(
                host: host,
                port: port,
                keyring: keyring,
                registry: registry,
                issuer: URL(string: issuer)!,
                tokenConfirmation: confirmation,
                policy: NativeAppTokenPolicy(clientIDs: Set(acceptedClientID), audience: audience ?? ""),
                tokenExchange: exchange,
                tokenForwarding: developmentPassThroughToken ? .developmentPassThrough : .asRegistered,
                claims: ClaimMapping(firstName: givenNameClaim, lastName: familyNameClaim, kvnumber: kvnrClaim, requiredScopes: Set(requiredScope)),
                userinfoCacheLifetime: .seconds(userinfoCacheSeconds),
                launchesPerMinute: rateLimit,
                providerTimeout: .seconds(providerTimeout),
                maximumProviderRequests: maxProviderRequests
            )
            configuration.idleTimeout = idle.duration(otherwise: configuration.idleTimeout)
            configuration.metrics = try MetricsAddress.listener(metricsAddress)
            let readiness = ReadinessSwitch()
            let launcher = try LauncherApplication(configuration: configuration, minting: minting, readiness: readiness, metrics: metrics)
            let host = self.host
            let isDevelopment = keyring.isDevelopment
            let reloads = await ConfigurationReloadService.make(reloading: [minting], interval: registrySource.refresh, logger: logger)
            secret?.warnIfInline()  // once the configuration is accepted: errors stay one line
            logging.announceBuild()
            let application = launcher.makeApplication(
                onServerRunning: { channel in
                    let port = channel.localAddress?.port.map(String.init) ?? "?"
                    var lines = ["webapp-launch launcher on http://\(host):\(port) (catalogue: /v1/catalogue, launches: POST /v1/launches)"]
                    if isDevelopment {
                        lines.append("WARNING: development keys in use (public, from the repository): loopback only, never production.")
                    }
                    FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
                },
                onMetricsServerRunning: MetricsAddress.announcement(of: configuration.metrics)
            )
            do {
                try await ReadinessDrainService.run(application, reloads: reloads, readiness: readiness, delay: reloading.drainDelay, logger: logger)
            } catch {
                throw CommandFailure.configuration("the launcher stopped: \(error)")
            }
        }

        /// The options of issue 30: which tokens are accepted, and how partners get theirs.
        private func validateTokenBinding() throws {
            if introspectionEndpoint != nil && jwksURI != nil {
                throw ValidationError("--introspection-endpoint and --jwks-uri are two ways to confirm a token: give one")
            }
            if let jwksURI {
                guard let url = URL(string: jwksURI), IssuerURL.isAcceptable(url) else {
                    throw ValidationError("--jwks-uri must be an https URL (http only on loopback)")
                }
            }
            if introspectionEndpoint != nil || jwksURI != nil {
                guard !acceptedClientID.isEmpty, !acceptedClientID.contains(where: \.isEmpty) else {
                    throw ValidationError("--introspection-endpoint and --jwks-uri need --accepted-client-id: the native app's client id")
                }
                guard let audience, !audience.isEmpty else {
                    throw ValidationError("--introspection-endpoint and --jwks-uri need --audience: the launcher's audience")
                }
            }
            if let tokenEndpoint {
                guard let url = URL(string: tokenEndpoint), IssuerURL.isAcceptable(url) else {
                    throw ValidationError("--token-endpoint must be an https URL (http only on loopback)")
                }
                guard clientID != nil else { throw ValidationError("--token-endpoint requires --client-id: the launcher's own client") }
            }
        }

        /// Refusals that need the loaded keyring and registry, at startup and on every reload.
        struct TokenBinding: Sendable {
            let developmentPassThrough: Bool
            /// Introspection or JWT access tokens: the client a token was issued to is known.
            let confirmsClient: Bool
            /// A token endpoint for RFC 8693 exchange is configured.
            let exchanges: Bool

            func check(keyring: Keyring, registry: Registry) throws {
                if developmentPassThrough && !keyring.isDevelopment {
                    throw CommandFailure.configuration("--development-pass-through-token needs development keys: a production launch never carries the app's own token")
                }
                if !confirmsClient && !keyring.isDevelopment {
                    throw CommandFailure.configuration(
                        "userinfo cannot tell which client a token was issued to: with production keys use --introspection-endpoint or --jwks-uri, with --accepted-client-id and --audience"
                    )
                }
                let exchanged = registry.apps.filter { if case .exchanged = $0.accessToken { true } else { false } }
                if let first = exchanged.first, !exchanges, !developmentPassThrough {
                    throw CommandFailure.configuration("the registry asks for an exchanged token for `\(first.id)`: configure --token-endpoint")
                }
            }
        }

        private func zip<A, B, C>(_ a: A?, _ b: B?, _ c: C?) -> (A, B, C)? {
            guard let a, let b, let c else { return nil }
            return (a, b, c)
        }
    }
}
