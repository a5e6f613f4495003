import Foundation
import WebAppLaunch
import WebAppRegistry

/// What `webapp-launch serve` uses when started with no options: the shipped development
/// keyring and sample registry, a fictional demo user, and loopback URLs rebased onto the
/// port actually served.
public enum DevelopmentDefaults {
    /// The development keyring shipped in the repository (public keys: loopback only).
    public static let keyringPath = "keys/dev.keyring.json"
    /// The sample registry shipped in the repository.
    public static let registryPath = "keys/registry.sample.json"

    /// The fictional users of the launcher console.
    public static let demoUsersPath = "keys/demo-users.json"

    /// A fictional demo user with a valid KVNR, for the printed launch URL.
    public static let demoUser = LaunchUser(
        accessToken: "demo-access-token-not-a-real-credential",
        firstName: "Erika",
        lastName: "Mustermann",
        kvnumber: "T012345678"
    )

    /// Finds a shipped file: relative to the working directory, or else relative to this
    /// source checkout (so `swift run` and tests work from any directory of the clone).
    /// - Parameter relativePath: A path such as `keys/dev.keyring.json`.
    /// - Returns: A path that exists, or `relativePath` unchanged when none does.
    public static func locate(_ relativePath: String) -> String {
        if FileManager.default.fileExists(atPath: relativePath) { return relativePath }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        let candidate = root.appendingPathComponent(relativePath).path
        return FileManager.default.fileExists(atPath: candidate) ? candidate : relativePath
    }

    /// A registry whose loopback apps are moved to `host:port` (development only), so the
    /// sample registry works on whatever port the server was asked to use. Non-loopback
    /// apps are kept as they are.
    /// - Parameters:
    ///   - registry: The registry to rebase.
    ///   - host: The loopback host served.
    ///   - port: The port served.
    /// - Returns: The rebased registry.
    public static func rebasingLoopbackApps(of registry: Registry, host: String, port: Int) throws -> Registry {
        try Registry(apps: registry.apps.map { app in
            guard app.url.isLoopback else { return app }
            let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            var text = "http://\(hostPart):\(port)\(app.url.path)"
            if let query = app.url.query { text += "?\(query)" }
            return try WebApp(id: app.id, title: app.title, summary: app.summary, url: RegisteredURL(text), deepLinks: app.deepLinks)
        })
    }
}
