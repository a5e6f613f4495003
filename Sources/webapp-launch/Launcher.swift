import ArgumentParser
import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import WebAppLaunch
import WebAppLaunchLauncher
import WebAppLaunchMiddleware
import WebAppRegistry

extension WebAppLaunchCommand {
    /// Runs the launcher service: the app's backend that mints launches for verified users.
    struct Launcher: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "launcher",
            abstract: "Run the launcher service: confirm the app's access token with the identity provider, then mint a launch.",
            discussion: """
            GET /v1/catalogue: the registered apps as cards (ETag, Cache-Control).
            POST /v1/launches with Authorization: Bearer <access token> and {"app": "ID"}: 201 {"url", "expires_at"};
            401 invalid token, 403 missing scope or claim, 404 unknown app, 422 bad body, 429 rate limit,
            503 identity provider unavailable (nothing is minted).
            Names and KVNR come only from the identity provider (userinfo, or RFC 7662 introspection).
            --client-secret takes env:NAME, file:PATH or - (standard input): never the secret itself on argv.
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

        @Option(name: .long, help: "The launcher's client secret for introspection: env:NAME, file:PATH or - (stdin). Default: env:WEBAPP_LAUNCH_CLIENT_SECRET.")
        var clientSecret: String = "env:WEBAPP_LAUNCH_CLIENT_SECRET"

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

        @OptionGroup var logging: LogLevelOption

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
            guard let issuerURL = URL(string: issuer), IssuerURL.isAcceptable(issuerURL) else {
                throw ValidationError("--issuer must be an https URL (http only on loopback)")
            }
            if let introspectionEndpoint {
                guard let url = URL(string: introspectionEndpoint), IssuerURL.isAcceptable(url) else {
                    throw ValidationError("--introspection-endpoint must be an https URL (http only on loopback)")
                }
                guard clientID != nil else { throw ValidationError("--introspection-endpoint requires --client-id") }
            }
            if !requiredScope.isEmpty && introspectionEndpoint == nil {
                throw ValidationError("--required-scope needs --introspection-endpoint: userinfo does not report scopes")
            }
            guard (0...300).contains(userinfoCacheSeconds) else { throw ValidationError("--userinfo-cache-seconds must be 0 to 300") }
            guard (1...600).contains(rateLimit) else { throw ValidationError("--rate-limit must be 1 to 600") }
            guard (1...30).contains(providerTimeout) else { throw ValidationError("--provider-timeout must be 1 to 30") }
            guard (1...10_000).contains(maxProviderRequests) else { throw ValidationError("--max-provider-requests must be 1 to 10000") }
        }

        func run() async throws {
            logging.bootstrap()
            // Secrets first: an unreadable env:/file: fails before anything else.
            let secret = try introspectionEndpoint.map { _ in try SecretArgument(clientSecret, option: "--client-secret") }
            let registry = try registry.load()
            // Development keys mint only for loopback apps, on a loopback address.
            let keyring = try keyring.load(bindHost: host, publicURLs: registry.apps.map(\.url))
            // Everything that can refuse the configuration runs before the HTTP client exists:
            // a client must be shut down before it is released.
            let signer = try LaunchSigner(keyring: keyring, registry: registry)  // not_launcher_keyring: exit 2
            let introspection = introspectionEndpoint.flatMap { endpoint in
                clientID.flatMap { id in secret.map { (endpoint: URL(string: endpoint)!, clientID: id, secret: $0.value) } }
            }
            let timeout = Duration.seconds(providerTimeout)
            let httpClient = IdentityProviderHTTPClient.make(readTimeout: timeout)
            let provider: any IdentityProvider
            if let introspection {
                provider = IntrospectionProvider(
                    endpoint: introspection.endpoint,
                    clientID: introspection.clientID,
                    clientSecret: introspection.secret,
                    httpClient: httpClient,
                    timeout: timeout
                )
            } else {
                provider = OpenIDUserInfoProvider(issuer: URL(string: issuer)!, httpClient: httpClient, timeout: timeout)
            }
            let service = LauncherService(
                signer: signer,
                identityProvider: provider,
                claims: ClaimMapping(firstName: givenNameClaim, lastName: familyNameClaim, kvnumber: kvnrClaim, requiredScopes: Set(requiredScope)),
                cache: userinfoCacheSeconds > 0 ? UserInfoCache(maximumAge: .seconds(userinfoCacheSeconds)) : nil,
                rateLimiter: SubjectRateLimiter(capacity: rateLimit, refillInterval: .milliseconds(60_000 / rateLimit)),
                providerLimit: ProviderRequestLimit(maximum: maxProviderRequests),
                logger: Logger(label: "webapp-launch.launcher")
            )
            let host = self.host
            let isDevelopment = keyring.isDevelopment
            // Development keys also on the address actually bound (a name can resolve anywhere).
            let bindGuard = BoundAddressGuard(keyring: keyring)
            secret?.warnIfInline()  // once the configuration is accepted: errors stay one line
            logging.announceBuild()
            let application = Application(
                router: LauncherRouter.make(service: service),
                configuration: .init(address: .hostname(host, port: port), serverName: nil),
                services: isDevelopment ? [bindGuard] : [],
                onServerRunning: { channel in
                    bindGuard.serverBound(channel.localAddress)
                    let port = channel.localAddress?.port.map(String.init) ?? "?"
                    var lines = ["webapp-launch launcher on http://\(host):\(port) (catalogue: /v1/catalogue, launches: POST /v1/launches)"]
                    if isDevelopment {
                        lines.append("WARNING: development keys in use (public, from the repository): loopback only, never production.")
                    }
                    FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
                },
                logger: Logger(label: "webapp-launch.launcher.http")
            )
            do {
                try await application.runService()
            } catch {
                try? await httpClient.shutdown()
                throw CommandFailure.configuration("the launcher stopped: \(error)")
            }
            try? await httpClient.shutdown()
        }
    }
}
