import Foundation
import Logging
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport
import WebAppRegistry

/// A server that serves the magazin app from an app keyring file and a registry file, and
/// reloads both from those files, as `serve` does on SIGHUP.
struct ReloadFixture: Sendable {
    let directory: TemporaryDirectory
    let logs = LogCapture()

    var keyringPath: String { directory.path("healthmagazin.keyring.json") }
    var registryPath: String { directory.path("registry.json") }

    static let registryJSON = """
    {"apps": [
      {"id": "healthmagazin", "title": "Gesundheitsmagazin", "url": "http://127.0.0.1:8080/apps/healthmagazin"},
      {"id": "bonus", "title": "Bonusprogramm", "url": "http://127.0.0.1:8080/apps/bonus?tenant=demo"}
    ]}
    """

    /// Writes the registry and the app keyring of `launcher` for the magazin app.
    init(launcher: Keyring) throws {
        directory = try TemporaryDirectory()
        try Data(Self.registryJSON.utf8).write(to: URL(fileURLWithPath: registryPath))
        try launcher.exportingApp(Fixtures.magazin.id).write(toFile: keyringPath)
    }

    /// The server, built from the files, reloading from them.
    func server() throws -> WebAppServer {
        let keyringPath = keyringPath
        let registryPath = registryPath
        let registry = try Registry(contentsOfFile: registryPath)
        let app = try require(registry.app(id: Fixtures.magazin.id))
        let configuration = WebAppServerConfiguration(
            keyring: try Keyring(contentsOfFile: keyringPath), registry: registry, apps: [ServedApp(app)]
        )
        try configuration.validate()
        let metrics = ServerMetrics()
        return try WebAppServer(
            configuration: configuration,
            replayStore: InMemoryReplayStore(capacity: 1 << 16, metricsFactory: metrics.factory),
            metrics: metrics,
            logger: logs.makeLogger()
        ) {
            (try Keyring(contentsOfFile: keyringPath), try Registry(contentsOfFile: registryPath))
        }
    }

    /// A production launcher keyring with one active key.
    static func launcherKeyring(kid: String) throws -> Keyring {
        try Keyring(keys: [KeyringKey(kid: kid, status: .active, secret: try KeySecret.generate())], isDevelopment: false)
    }
}

/// `#require` outside a test body.
private func require<T>(_ value: T?) throws -> T {
    guard let value else { throw FixtureError() }
    return value
}

private struct FixtureError: Error {}
