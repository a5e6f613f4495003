import Foundation
@testable import WebAppLaunch
import WebAppLaunchTestSupport
import WebAppRegistry

/// The core suites' view of the shared fixtures (`WebAppLaunchTestSupport`): the rotation
/// keyring, the apps at their public URLs and the everyday user.
enum Fixtures {
    static let now = TestTime.now
    static let nowSeconds = TestTime.nowSeconds

    static func secret(_ fill: UInt8) -> KeySecret { TestKeys.secret(fill) }

    /// Keys: `old` (verify-only), `gone` (revoked), `current` (active, signs).
    static let keyring = TestKeys.rotation

    static let magazin = TestApps.magazin
    static let bonus = TestApps.bonus
    static let registry = try! Registry(apps: [magazin, bonus])

    static let user = TestUsers.jurgen

    static var signer: LaunchSigner { try! LaunchSigner(keyring: keyring, registry: registry) }

    static func verifier(_ app: WebApp = magazin, keyring: Keyring = keyring, policy: VerificationPolicy = VerificationPolicy()) -> LaunchVerifier {
        try! LaunchVerifier(keyring: keyring, app: app, policy: policy)
    }
}
