import Foundation
@testable import WebAppLaunch
import WebAppRegistry

/// Keys, apps and users shared by the core suites. Secrets are fixed bytes so failures
/// reproduce; they are test keys only.
enum Fixtures {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let nowSeconds: UInt64 = 1_795_000_000

    static func secret(_ fill: UInt8) -> KeySecret {
        try! KeySecret(bytes: (0..<32).map { UInt8($0) &+ fill })
    }

    /// Keys: `old` (verify-only), `gone` (revoked), `current` (active, signs).
    static let keyring: Keyring = try! Keyring(
        keys: [
            KeyringKey(kid: "old", status: .verifyOnly, secret: secret(0x10)),
            KeyringKey(kid: "gone", status: .revoked, secret: secret(0x20)),
            KeyringKey(kid: "current", status: .active, secret: secret(0x30)),
        ],
        isDevelopment: true
    )

    static let magazin = try! WebApp(
        id: "healthmagazin",
        title: "Gesundheitsmagazin",
        url: RegisteredURL("https://magazin.example/app"),
        deepLinks: DeepLinkAllowlist(hosts: ["healthmagazin"], pathPrefixes: ["/details"], queryKeys: ["article_id"])
    )
    static let bonus = try! WebApp(id: "bonus", title: "Bonus", url: RegisteredURL("https://bonus.example/start?tenant=demo&lang=de"))
    static let registry = try! Registry(apps: [magazin, bonus])

    static let user = LaunchUser(accessToken: "at-" + String(repeating: "x", count: 40), firstName: "Jürgen", lastName: "Groß", kvnumber: "A123456780")

    static var signer: LaunchSigner { try! LaunchSigner(keyring: keyring, registry: registry) }

    static func verifier(_ app: WebApp = magazin, keyring: Keyring = keyring, policy: VerificationPolicy = VerificationPolicy()) -> LaunchVerifier {
        try! LaunchVerifier(keyring: keyring, app: app, policy: policy)
    }
}
