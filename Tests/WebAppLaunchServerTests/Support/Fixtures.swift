import Foundation
@_spi(Testing) import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport
import WebAppRegistry

/// The server suites' view of the shared fixtures (`WebAppLaunchTestSupport`): the rotation
/// keyring, the apps on loopback, the distinctive user, and the launches they make.
enum Fixtures {
    static let now = TestTime.now

    static func secret(_ fill: UInt8) -> KeySecret { TestKeys.secret(fill) }

    /// `old` (verify-only), `gone` (revoked), `current` (active: signs launches and seals sessions).
    static let keyring = TestKeys.rotation

    /// The same keys as ``keyring``, as production keys: what an https audience needs
    /// (development keys serve loopback only, `DevelopmentKeyPolicy`).
    static let productionKeyring = TestKeys.rotationProduction

    static let magazin = TestApps.loopbackMagazin
    static let bonus = TestApps.loopbackBonus
    static let registry = try! Registry(apps: [magazin, bonus])

    /// Distinctive values, so a leak into a log or a response is found by a plain substring search.
    static let user = TestUsers.distinctive

    static let signer = try! LaunchSigner(keyring: keyring, registry: registry)

    /// A signer whose only key is `kid` with the given secret: unknown, revoked or verify-only keys.
    static func signer(kid: String, secret fill: UInt8, registry: Registry = registry) -> LaunchSigner {
        try! LaunchSigner(keyring: TestKeys.single(kid: kid, secret: secret(fill)), registry: registry)
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
