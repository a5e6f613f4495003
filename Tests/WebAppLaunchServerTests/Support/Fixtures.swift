import Foundation
@_spi(Testing) import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppRegistry

/// Keys, apps, users and signers shared by the server suites. Secrets are fixed bytes so
/// failures reproduce; they are test keys only.
enum Fixtures {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func secret(_ fill: UInt8) -> KeySecret {
        try! KeySecret(bytes: (0..<32).map { UInt8($0) &+ fill })
    }

    /// `old` (verify-only), `gone` (revoked), `current` (active: signs launches and seals sessions).
    static let keyring = try! Keyring(
        keys: [
            KeyringKey(kid: "old", status: .verifyOnly, secret: secret(0x10)),
            KeyringKey(kid: "gone", status: .revoked, secret: secret(0x20)),
            KeyringKey(kid: "current", status: .active, secret: secret(0x30)),
        ],
        isDevelopment: true
    )

    /// The same keys as ``keyring``, as production keys: what an https audience needs
    /// (development keys serve loopback only, `DevelopmentKeyPolicy`).
    static let productionKeyring = try! Keyring(keys: keyring.keys, isDevelopment: false)

    static let magazin = try! WebApp(
        id: "healthmagazin",
        title: "Gesundheitsmagazin",
        url: RegisteredURL("http://127.0.0.1:8080/apps/healthmagazin"),
        deepLinks: DeepLinkAllowlist(hosts: ["healthmagazin"], pathPrefixes: ["/details"], queryKeys: ["article_id"])
    )
    static let bonus = try! WebApp(id: "bonus", title: "Bonusprogramm", url: RegisteredURL("http://127.0.0.1:8080/apps/bonus?tenant=demo"))
    static let registry = try! Registry(apps: [magazin, bonus])

    /// Distinctive values, so a leak into a log or a response is found by a plain substring search.
    static let user = LaunchUser(
        accessToken: "at-Qz7vK2mR9xW4pL8nHj3Tf6-fixture-access-token",
        firstName: "Jürgen-Quirin",
        lastName: "Großmann-Zydeck",
        kvnumber: "A123456780"
    )

    static let signer = try! LaunchSigner(keyring: keyring, registry: registry)

    /// A signer whose only key is `kid` with the given secret: unknown, revoked or verify-only keys.
    static func signer(kid: String, secret fill: UInt8, registry: Registry = registry) -> LaunchSigner {
        let keyring = try! Keyring(keys: [KeyringKey(kid: kid, status: .active, secret: secret(fill))], isDevelopment: true)
        return try! LaunchSigner(keyring: keyring, registry: registry)
    }

    /// The configuration every server suite starts from: both apps at their registered URLs.
    static func configuration() -> WebAppServerConfiguration {
        WebAppServerConfiguration(keyring: keyring, registry: registry, apps: [ServedApp(magazin), ServedApp(bonus)])
    }

    /// The request target of a launch URL: path, registered query and `launch`, without the origin.
    static func launchTarget(
        for app: WebApp,
        user: LaunchUser = user,
        signer: LaunchSigner = signer,
        mode: LaunchMode = .sealed,
        issuedAt: Date = now
    ) -> String {
        let url = try! signer.launchURL(for: app.id, user: user, mode: mode, now: issuedAt)
        precondition(url.hasPrefix(app.url.origin))
        return String(url.dropFirst(app.url.origin.count))
    }

    /// Just the `launch` value.
    static func token(
        for app: WebApp,
        user: LaunchUser = user,
        signer: LaunchSigner = signer,
        mode: LaunchMode = .sealed,
        issuedAt: Date = now
    ) -> String {
        try! signer.launchToken(for: app.id, user: user, mode: mode, now: issuedAt)
    }

    /// The clean URL a successful launch redirects to: registered path and query.
    static func cleanTarget(of app: WebApp) -> String {
        app.url.path + (app.url.query.map { "?" + $0 } ?? "")
    }

    /// A token with one bit flipped at a byte offset (negative counts from the end).
    static func flippingBit(of token: String, atByte offset: Int) -> String {
        var bytes = Base64URL.decode(token)!
        let index = offset < 0 ? bytes.count + offset : offset
        bytes[index] ^= 0x01
        return Base64URL.encode(bytes)
    }
}
