import Foundation
import WebAppLaunch
import WebAppRegistry

/// What `webapp-launch serve` uses when started with no options, embedded in the binary so it
/// works from any directory: the development keyring, the sample registry and the demo
/// users (byte for byte the files in the repository's `keys/`, which a test checks), a
/// fictional demo user for the printed launch URL, and loopback URLs rebased onto the port
/// actually served.
public enum DevelopmentDefaults {
    /// The development keyring (public keys: loopback only). Same bytes as `keys/dev.keyring.json`.
    public static let keyringJSON = #"""
{
  "development": true,
  "keys": [
    {
      "kid": "dev-2026-10",
      "status": "verify-only",
      "secret": "E2SgLEQJQkDnDuOc2VR0Dcl8G11n-9BWIwqcaNr8F3c"
    },
    {
      "kid": "dev-2026-11",
      "status": "active",
      "secret": "O_Gsf6qizN0B1aCcOsfw3anrfaybIHTRaGC01Gj04gk"
    }
  ]
}
"""#

    /// The sample registry. Same bytes as `keys/registry.sample.json`.
    public static let registryJSON = #"""
{
  "apps": [
    {
      "id": "healthmagazin",
      "title": "Gesundheitsmagazin",
      "summary": "Articles on prevention and everyday health, personalised for the member.",
      "url": "http://127.0.0.1:8080/apps/healthmagazin",
      "deepLinks": {
        "scheme": "navidapro",
        "hosts": ["healthmagazin"],
        "pathPrefixes": ["/details"],
        "queryKeys": ["article_id"]
      }
    },
    {
      "id": "bonusprogramm",
      "title": "Bonusprogramm",
      "summary": "Collect bonus points for check-ups and vaccinations.",
      "url": "http://127.0.0.1:8080/apps/bonusprogramm?tenant=demo",
      "deepLinks": {
        "scheme": "navidapro",
        "hosts": ["bonus"],
        "pathPrefixes": ["/points", "/rewards"],
        "queryKeys": ["id"]
      }
    }
  ]
}
"""#

    /// The fictional users of the launcher console. Same bytes as `keys/demo-users.json`.
    public static let demoUsersJSON = #"""
{
  "users": [
    {"id": "erika", "firstName": "Erika", "lastName": "Mustermann", "kvnumber": "T012345678", "accessToken": "demo-token-erika-not-a-real-credential"},
    {"id": "juergen", "firstName": "Jürgen", "lastName": "Groß", "kvnumber": "M204198708", "accessToken": "demo-token-juergen-not-a-real-credential"},
    {"id": "zoe", "firstName": "Zoë-Chloé", "lastName": "O'Brien-Müller", "kvnumber": "B551029382", "accessToken": "demo-token-zoe-not-a-real-credential"},
    {"id": "aenne", "firstName": "Änne", "lastName": "d'Alembert", "kvnumber": "Q817263542", "accessToken": "demo-token-aenne-not-a-real-credential"}
  ]
}
"""#

    /// The development keyring, parsed.
    /// - Returns: The keyring, marked as development keys.
    public static func keyring() throws -> Keyring {
        try Keyring(json: Data(keyringJSON.utf8))
    }

    /// The sample registry, parsed.
    /// - Returns: The registry of the two sample apps.
    public static func registry() throws -> Registry {
        try Registry(json: Data(registryJSON.utf8))
    }

    /// The demo users, parsed.
    /// - Returns: The users of the launcher console.
    public static func demoUsers() throws -> [DemoUser] {
        try DemoUser.load(json: Data(demoUsersJSON.utf8))
    }

    /// A fictional demo user with a valid KVNR, for the printed launch URL.
    public static let demoUser = LaunchUser(
        accessToken: "demo-access-token-not-a-real-credential",
        firstName: "Erika",
        lastName: "Mustermann",
        kvnumber: "T012345678"
    )

    /// The deep link the sample page's JavaScript-handler button posts: the plugin contract's
    /// example. Apps whose allowlist does not permit it show the app refusing it.
    public static let articleDeepLink = "navidapro://healthmagazin/details?article_id=606"

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
