import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Metrics
import ServiceLifecycle
import WebAppLaunch
import WebAppLaunchGate
import WebAppLaunchMiddleware
import WebAppLaunchPostgres
import WebAppLaunchReload
import WebAppLaunchSQLite
import WebAppRegistry

extension WebAppLaunchCommand {
    /// Runs the gate in front of a web app written in any language.
    struct Gate: AsyncParsableCommand, ListeningCommand {
        static let configuration = CommandConfiguration(
            abstract: "Guard a web app in any language: exchange launches, then proxy with identity headers (or answer nginx auth_request).",
            discussion: """
            Reverse proxy: requests with a valid session go to --upstream with X-WebApp-Launch-Subject,
            -First-Name, -Last-Name, -KVNR, -App (and -Access-Token with --pass-access-token), values
            UTF-8 percent-encoded; incoming X-WebApp-Launch-* headers are always removed.
            auth_request (--auth-request): GET /auth answers 202 with those headers or 401; every other
            path exchanges a launch for the session cookie. See Docs/nginx-auth-request.conf.
            --replay takes env:NAME, file:PATH or - (standard input) so a database password stays
            off the command line (ps); --unauthenticated-redirect takes a path on the same site.
            Examples:
              webapp-launch gate --app healthmagazin --public-url https://magazin.example/ \\
                  --upstream http://127.0.0.1:9000 --keyring healthmagazin.app-keyring.json --replay env:DATABASE_URL
              webapp-launch gate --auth-request --port 4180 --app healthmagazin --public-url https://magazin.example/ \\
                  --keyring healthmagazin.app-keyring.json
            """
        )

        @Option(name: .long, help: "The app id launches must name.")
        var app: String

        @Option(name: .long, help: "The public URL users reach the app at (the launch audience).")
        var publicURL: String

        @Option(name: .long, help: "Reverse proxy to this origin, e.g. http://127.0.0.1:9000.")
        var upstream: String?

        @Flag(name: .long, help: "nginx auth_request mode instead of a reverse proxy.")
        var authRequest = false

        @Flag(
            inversion: .prefixedNo,
            help: "Answer the hot requests on the connection's event loop: GETs with a live session relayed over an idle upstream connection (reverse proxy), nginx's GET /auth checks with a live session (--auth-request). --no-event-loop-answers sends them through Hummingbird's request path. The same decision either way."
        )
        var eventLoopAnswers = true

        @OptionGroup var keyring: KeyringOption

        @OptionGroup var replay: ReplayOption

        @Option(name: .long, help: "Address to bind.")
        var host: String = "127.0.0.1"

        @Option(name: .long, help: "Port to bind.")
        var port: Int = 4180

        @Flag(name: .long, help: "Pass the access token upstream in X-WebApp-Launch-Access-Token.")
        var passAccessToken = false

        @Option(name: .long, help: "Send requests without a session to this same-site path (303), e.g. /signin, instead of answering 401.")
        var unauthenticatedRedirect: String?

        @Option(name: .long, help: "Largest request body forwarded, in bytes (larger: 413).")
        var maxRequestBody: Int = 10 * 1024 * 1024

        @Option(name: .long, help: "Largest response body passed back, in bytes.")
        var maxResponseBody: Int = 100 * 1024 * 1024

        @Option(name: .long, help: "Connections kept open to the upstream at once (requests beyond them wait for one).")
        var maxUpstreamConnections: Int = 64

        @Option(name: .long, help: "Requests of one session upstream at once (more get 429).")
        var maxUpstreamConnectionsPerSession: Int = 8

        @Option(name: .long, help: "Seconds a client may take to accept each chunk of a streamed response (then it ends).")
        var clientWriteTimeout: Int = 30

        @Option(name: .long, help: "Seconds the upstream may take to connect (then 504).")
        var connectTimeout: Int = 5

        @Option(name: .long, help: "Seconds an upstream connection is kept idle for the next request: below the app server's own keep-alive timeout (Node, uvicorn, Apache: 5).")
        var upstreamIdleTimeout: Int = 4

        @Option(name: .long, help: "Metrics listener HOST:PORT (Prometheus text at /metrics: launches accepted, rejected by code, the replay store's), or none (the default). Never the gate's own listener.")
        var metricsAddress: String = "none"

        @Option(name: .customLong("upstream-ca-file"), help: "With an https:// --upstream: trust only the certificate authorities of this PEM file for its certificate (a private CA), instead of the machine's store. Read at start.")
        var upstreamCAFile: String?

        @Option(name: .long, help: "Seconds the upstream may take to answer or stay silent (then 504).")
        var upstreamTimeout: Int = 30

        @Flag(name: .long, help: "Print the nginx configuration for --auth-request (from the gate's own rules) and exit.")
        var printNginxConfig = false

        @Option(name: .long, help: "With --print-nginx-config: which part (complete, http, server).")
        var nginxConfigPart: NginxConfigPart = .complete

        @Option(name: .long, help: "With --print-nginx-config: the web app's host:port.")
        var nginxApp: String = "127.0.0.1:9000"

        @Option(name: .long, help: "With --print-nginx-config: the example server's listen.")
        var nginxListen: String = "127.0.0.1:8080"

        @Option(name: .long, help: "With --print-nginx-config: the log directory.")
        var nginxLogDirectory: String = "/var/log/nginx/"

        @OptionGroup var verification: VerificationOptions

        @OptionGroup var reloading: ReloadOptions

        @OptionGroup var idle: IdleTimeoutOption

        @OptionGroup var eventLoops: EventLoopsOption

        @OptionGroup var logging: LogLevelOption

        func validate() throws {
            guard (upstream != nil) != authRequest else { throw ValidationError("give exactly one of --upstream and --auth-request") }
            guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
            guard maxRequestBody >= 0, maxResponseBody >= 0 else { throw ValidationError("body limits must not be negative") }
            guard (1...4096).contains(maxUpstreamConnections) else { throw ValidationError("--max-upstream-connections must be 1 to 4096") }
            _ = try MetricsAddress.listener(metricsAddress)
            guard (1...3600).contains(connectTimeout), (1...3600).contains(upstreamTimeout), (1...3600).contains(upstreamIdleTimeout) else {
                throw ValidationError("timeouts must be 1 to 3600 seconds")
            }
        }

        func run() async throws {
            if printNginxConfig {
                try printNginxConfiguration()
                return
            }
            logging.bootstrap()
            let (storeConfiguration, replaySource) = try replay.resolve()  // first: an unreadable env:/file: fails early
            let publicURL: RegisteredURL
            do {
                publicURL = try RegisteredURL(self.publicURL)
            } catch {
                throw CommandFailure.configuration("--public-url: \(error)")
            }
            let keyring = try keyring.load(bindHost: host, publicURLs: [publicURL])
            let mode: GateConfiguration.Mode
            var redirect: RedirectTarget?
            do {
                mode = try upstream.map { .reverseProxy(upstream: try GateUpstream($0)) } ?? .authRequest
            } catch let error as ConfigurationError {
                throw CommandFailure.configuration(error.description)
            }
            if let unauthenticatedRedirect {
                do {
                    redirect = try RedirectTarget(unauthenticatedRedirect)
                } catch {
                    throw CommandFailure.configuration("--unauthenticated-redirect: \(error.description)")
                }
            }
            var configuration = GateConfiguration(appID: app, publicURL: publicURL, keyring: keyring, mode: mode)
            configuration.host = host
            configuration.port = port
            configuration.passAccessToken = passAccessToken
            configuration.answersOnEventLoop = eventLoopAnswers
            configuration.unauthenticatedRedirect = redirect
            configuration.maximumRequestBodyBytes = maxRequestBody
            configuration.maximumResponseBodyBytes = maxResponseBody
            configuration.connectTimeout = .seconds(connectTimeout)
            configuration.maximumUpstreamConnections = maxUpstreamConnections
            configuration.maximumUpstreamConnectionsPerSession = maxUpstreamConnectionsPerSession
            configuration.clientWriteTimeout = .seconds(max(1, clientWriteTimeout))
            configuration.responseTimeout = .seconds(upstreamTimeout)
            configuration.readTimeout = .seconds(upstreamTimeout)
            configuration.upstreamIdleTimeout = .seconds(upstreamIdleTimeout)
            configuration.upstreamTrust = upstreamCAFile.map { .certificateAuthorities(pemFile: $0) } ?? .system
            configuration.idleTimeout = idle.duration(otherwise: configuration.idleTimeout)
            configuration.sessionLifetime = verification.sessionLifetime
            configuration.policy = verification.policy
            configuration.metrics = try MetricsAddress.listener(metricsAddress)
            do {
                try configuration.validate()
            } catch {
                throw CommandFailure.configuration(error.description)
            }
            let logger = Logger(label: "webapp-launch.gate")
            let metrics = ServerMetrics()
            let (store, services) = try await openStore(storeConfiguration, metricsFactory: metrics.factory, logger: logger)
            let gate: WebAppGate
            do {
                // SIGHUP reads the keyring again with the startup checks (file mode, policy, app).
                gate = try WebAppGate(
                    configuration: configuration, replayStore: store, logger: logger, metrics: metrics,
                    reloadingKeyring: self.keyring.reloader(bindHost: host, publicURLs: [publicURL])
                )
            } catch {
                // As `serve` does: a SQLite file must be closed before its store goes away.
                if let sqlite = store as? SQLiteReplayStore { try? await sqlite.close() }
                throw CommandFailure.configuration(error.description)
            }
            var lines = ["webapp-launch gate for \(app) at \(publicURL) (replay store: \(storeConfiguration))"]
            if case .memory = storeConfiguration {
                lines.append("WARNING: the in-memory replay store forgets used launches on restart; use SQLite or PostgreSQL.")
            }
            if keyring.isDevelopment {
                lines.append("WARNING: development keys in use (public, from the repository): loopback only, never production.")
            }
            let modeLine = switch mode {
            case .reverseProxy(let upstream): "proxying to \(upstream)"
            case .authRequest: "auth_request endpoint at \(AuthRequestEndpoint<WebAppRequestContext>.path)"
            }
            let banner = lines.joined(separator: "\n")
            let application = gate.makeApplication(
                services: services,
                onServerRunning: { channel in
                    let port = channel.localAddress?.port.map(String.init) ?? "?"
                    FileHandle.standardOutput.write(Data("\(banner)\ngate listening on http://\(host):\(port), \(modeLine)\n".utf8))
                },
                onMetricsServerRunning: MetricsAddress.announcement(of: configuration.metrics)
            )
            let reloads = await ConfigurationReloadService.make(reloading: gate.reloadables, logger: logger)
            replaySource?.warnIfInline()  // once the configuration is accepted: errors stay one line
            logging.announceBuild()
            try await ReadinessDrainService.run(
                application, reloads: reloads, readiness: gate.readiness, delay: reloading.drainDelay, logger: logger
            )
        }

        /// Prints ``NginxConfiguration`` for this gate's public URL and address.
        private func printNginxConfiguration() throws {
            guard authRequest else { throw CommandFailure.configuration("--print-nginx-config is for --auth-request") }
            let publicURL: RegisteredURL
            do {
                publicURL = try RegisteredURL(self.publicURL)
            } catch {
                throw CommandFailure.configuration("--public-url: \(error)")
            }
            let bracketed = host.contains(":") ? "[\(host)]" : host
            let nginx = NginxConfiguration(
                publicURL: publicURL, gateAddress: "\(bracketed):\(port)", appAddress: nginxApp,
                logDirectory: nginxLogDirectory, listen: nginxListen,
                gateIdleTimeout: idle.duration(otherwise: GateConfiguration.defaultIdleTimeout),
                appIdleTimeout: .seconds(upstreamIdleTimeout)
            )
            let text = switch nginxConfigPart {
            case .complete: nginx.complete
            case .http: nginx.httpContext
            case .server: nginx.serverContext
            }
            FileHandle.standardOutput.write(Data(text.utf8))
        }

        /// Which part of the nginx configuration to print.
        enum NginxConfigPart: String, ExpressibleByArgument, CaseIterable {
            case complete, http, server
        }

        private func openStore(
            _ configuration: ReplayStoreConfiguration,
            metricsFactory: any MetricsFactory,
            logger: Logger
        ) async throws -> (any ReplayStore, [any Service]) {
            do {
                switch configuration {
                case .memory(let capacity):
                    return (InMemoryReplayStore(capacity: capacity, metricsFactory: metricsFactory), [])
                case .sqlite(let path):
                    let store = try await SQLiteReplayStore.open(path: path, metricsFactory: metricsFactory)
                    return (store, [store])
                case .postgres(let url):
                    var storeConfiguration = PostgresReplayStore.Configuration(url: url)
                    storeConfiguration.allowsAsynchronousCommit = replay.replayAllowAsyncCommit
                    let store = try PostgresReplayStore(configuration: storeConfiguration, logger: logger, metricsFactory: metricsFactory)
                    return (store, [store])
                }
            } catch {
                throw CommandFailure.configuration("replay store \(configuration): \((error as? ReplayStoreError)?.code.rawValue ?? "cannot be opened")")
            }
        }
    }
}
