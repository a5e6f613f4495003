import ArgumentParser
import Foundation
import Hummingbird
import Logging
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchReload
import WebAppLaunchServer
import WebAppRegistry

extension WebAppLaunchCommand {
    /// Runs the web-app server.
    struct Serve: AsyncParsableCommand, ListeningCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the web app: verify launches, exchange them for a session, serve the page.",
            discussion: """
            With no options: 127.0.0.1:8080, the embedded development keyring and sample registry,
            a SQLite replay store under $XDG_STATE_HOME (or ~/.local/state)/webapp-launch, so a used
            launch stays used across restarts, and metrics on 127.0.0.1:9464; prints a launch URL
            for a demo user.
            Examples:
              webapp-launch serve
              webapp-launch serve --port 9000 --replay sqlite:/var/lib/webapp-launch/replay.db
              webapp-launch serve --host 0.0.0.0 --keyring /etc/webapp-launch/healthmagazin.keyring.json \\
                  --public-url https://magazin.example/app --app healthmagazin --replay env:DATABASE_URL
            --replay takes env:NAME, file:PATH or - (standard input) so a database password stays
            off the command line (ps); a password given inline works, with a warning.
            With an app keyring (keygen --export-app) the server serves that one app only.
            """
        )

        @Option(name: .long, help: "Address to bind.")
        var host: String = "127.0.0.1"

        @Option(name: .long, help: "Port to bind.")
        var port: Int = 8080

        @OptionGroup var keyring: KeyringOption
        @OptionGroup var registry: RegistryOption

        @Option(name: .long, help: "Public URL of the app (the audience); requires --app.")
        var publicURL: String?

        @Option(name: .long, help: "Serve only this app id.")
        var app: String?

        @OptionGroup var replay: ReplayOption

        @Option(name: .long, help: "Metrics listener HOST:PORT (Prometheus text at /metrics), or none. Never the app's own listener.")
        var metricsAddress: String = MetricsListener.loopbackDefault.description

        @OptionGroup var verification: VerificationOptions

        @OptionGroup var reloading: ReloadOptions

        @OptionGroup var idle: IdleTimeoutOption

        @OptionGroup var eventLoops: EventLoopsOption

        @Flag(
            inversion: .prefixedNo,
            help: "Exchange launches on the connection's event loop when the replay store claims without a task (the memory store at once, PostgreSQL through a callback); --no-event-loop-launches sends them through Hummingbird's request path. The same exchange either way."
        )
        var eventLoopLaunches = true

        @OptionGroup var logging: LogLevelOption

        func validate() throws {
            guard (1...65535).contains(port) else { throw ValidationError("--port must be 1 to 65535") }
            if publicURL != nil && app == nil { throw ValidationError("--public-url requires --app") }
            _ = try MetricsAddress.listener(metricsAddress)
        }

        func run() async throws {
            try await registry.withSource { try await run(registrySource: $0) }
        }

        private func run(registrySource: RegistrySource) async throws {
            logging.bootstrap()
            let (replayStore, replaySource) = try replay.resolve()  // first: an unreadable env:/file: fails early
            // The development-key policy runs before rebasing: rebasing onto a public host fails
            // with a registry error about plain http, which hides the real reason.
            let keyring = try keyring.load(bindHost: host, publicURLs: [try parsedPublicURL()].compactMap { $0 })
            var registry = try await registrySource.load()
            if keyring.isDevelopment && publicURL == nil {
                registry = try DevelopmentDefaults.rebasingLoopbackApps(of: registry, host: host, port: port)
            }
            let served = try servedApps(in: registry, appID: app ?? keyring.appID)
            var configuration = WebAppServerConfiguration(keyring: keyring, registry: registry, apps: served)
            configuration.host = host
            configuration.port = port
            configuration.sessionLifetime = verification.sessionLifetime
            configuration.policy = verification.policy
            configuration.replayStore = replayStore
            configuration.replayAllowsAsynchronousCommit = replay.replayAllowAsyncCommit
            configuration.metrics = try MetricsAddress.listener(metricsAddress)
            configuration.idleTimeout = idle.duration(otherwise: configuration.idleTimeout)
            configuration.answersLaunchesOnEventLoop = eventLoopLaunches
            if keyring.isDevelopment {
                configuration.demoUsers = try DevelopmentDefaults.demoUsers()
            }
            let server: WebAppServer
            do {
                // An app keyring for another app is refused here, as `app_mismatch`.
                // SIGHUP reads both files again with the startup loaders and checks.
                let keyringReload = self.keyring.reloader(bindHost: host, publicURLs: [try parsedPublicURL()].compactMap { $0 })
                server = try await WebAppServer.make(configuration: configuration) {
                    (try keyringReload(), try await registrySource.load())
                }
            } catch {
                throw CommandFailure.configuration("\(error)")
            }
            let banner = try self.banner(keyring: keyring, registry: registry, served: served, store: configuration.replayStore)
            let application = server.makeApplication(
                onServerRunning: { _ in
                    FileHandle.standardOutput.write(Data((banner + "\n").utf8))
                },
                onMetricsServerRunning: MetricsAddress.announcement(of: configuration.metrics)
            )
            let reloads = await ConfigurationReloadService.make(
                reloading: [server.verification], interval: registrySource.refresh, logger: server.logger
            )
            replaySource?.warnIfInline()  // once the configuration is accepted: errors stay one line
            logging.announceBuild()
            do {
                try await ReadinessDrainService.run(
                    application, reloads: reloads, readiness: server.readiness, delay: reloading.drainDelay, logger: server.logger
                )
            } catch let error as ConfigurationError {
                throw CommandFailure.configuration(error.description)
            }
        }

        private func servedApps(in registry: Registry, appID: String?) throws -> [ServedApp] {
            if let app = appID {
                guard let entry = registry.app(id: app) else {
                    throw CommandFailure.configuration("no app \(app) in the registry")
                }
                guard let publicURL = try parsedPublicURL() else { return [ServedApp(entry)] }
                return [ServedApp(entry, publicURL: publicURL)]
            }
            let local = registry.apps.filter { $0.url.isLoopback && $0.url.port == port && RegisteredURL.isLoopback(host) }
            guard !local.isEmpty else {
                throw CommandFailure.configuration("no registered app is served at \(host):\(port); use --app and --public-url")
            }
            return local.map(ServedApp.init)
        }

        /// `--public-url`, parsed, or `nil` when not given.
        private func parsedPublicURL() throws -> RegisteredURL? {
            guard let publicURL else { return nil }
            do {
                return try RegisteredURL(publicURL)
            } catch {
                throw CommandFailure.configuration("--public-url: \(error)")
            }
        }

        private func banner(keyring: Keyring, registry: Registry, served: [ServedApp], store: ReplayStoreConfiguration) throws -> String {
            // The store's description never includes a PostgreSQL connection string.
            var lines = ["webapp-launch serving on http://\(host):\(port) (replay store: \(store))"]
            if case .memory = store {
                lines.append("WARNING: the in-memory replay store forgets used launches on restart; use the default SQLite store or PostgreSQL.")
            }
            if keyring.isDevelopment {
                lines.append("WARNING: development keys in use (public, from the repository): loopback only, never production.")
            }
            if keyring.isDevelopment && keyring.appID == nil {  // an app keyring cannot mint
                lines.append("Launcher console: open http://\(host.contains(":") ? "[\(host)]" : host):\(port)/ , pick a user and a web app.")
                lines.append("Launcher API (as the app calls it): POST http://\(host.contains(":") ? "[\(host)]" : host):\(port)/v1/launches with a demo user's access token (keys/demo-users.json).")
                let signer = try LaunchSigner(keyring: keyring, registry: registry)
                for app in served {
                    let url = try signer.launchURL(
                        forRegisteredURL: app.publicURL,
                        user: DevelopmentDefaults.demoUser,
                        lifetime: LaunchSigner.maximumLifetime
                    )
                    lines.append("Open \(app.app.title) as the demo user (valid for \(LaunchSigner.maximumLifetime) s, once):")
                    lines.append("  \(url)")
                }
            }
            return lines.joined(separator: "\n")
        }
    }
}
