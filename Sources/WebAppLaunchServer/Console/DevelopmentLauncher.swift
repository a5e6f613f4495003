import Logging
import WebAppLaunch
import WebAppLaunchLauncher
import WebAppRegistry

/// The launcher of the development server: the same ``LauncherService`` the app's backend
/// runs, with the demo users' access tokens vouched for by a ``DevelopmentIdentityProvider``.
///
/// The console asks it for every launch with the chosen demo user's access token, so a demo
/// launch takes the app's path (token → identity provider → claims → KVNR check → rate
/// limit → signer), and its `/v1/…` API answers on the development server for a native app
/// or `curl` with a demo token.
enum DevelopmentLauncher {
    /// The launcher for a development configuration.
    /// - Parameters:
    ///   - configuration: The server's development keyring, registry (as served) and demo users.
    ///   - logger: Where the launcher logs (no personal data).
    /// - Returns: The service.
    /// - Throws: `KeyringError` (`not_launcher_keyring`) for an app keyring, which cannot mint.
    static func service(configuration: WebAppServerConfiguration, logger: Logger) throws(KeyringError) -> LauncherService {
        let provider = DevelopmentIdentityProvider(identities: configuration.demoUsers.map { user in
            let subject = "demo-" + user.id
            let claims = ["sub": subject, "given_name": user.firstName, "family_name": user.lastName, "kvnr": user.kvnumber]
            return (user.accessToken, ProviderIdentity(subject: subject, claims: claims))
        })
        return LauncherService(
            signer: try LaunchSigner(keyring: configuration.keyring, registry: configuration.registry),
            identityProvider: provider,
            cache: nil,
            rateLimiter: SubjectRateLimiter(capacity: 120, refillInterval: .milliseconds(500)),
            // The console's demo tokens go into the demo launches, as before: they mean
            // nothing outside the development server, and the pass-through refuses to mint
            // with anything but development keys.
            tokenForwarding: .developmentPassThrough,
            logger: logger
        )
    }
}
