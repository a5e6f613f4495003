import WebAppLaunch
import WebAppRegistry

/// What a launcher's reload replaces at once: the signer (launcher keyring and registry) and
/// the catalogue encoded from the same registry, so a card never names an app the signer
/// does not know.
public struct MintingConfiguration: Sendable {
    /// Mints launches for the registered apps.
    public let signer: LaunchSigner
    /// The registry's cards, encoded once per load.
    public let catalogue: Catalogue

    /// - Parameter signer: A signer over the launcher keyring and the registry.
    public init(signer: LaunchSigner) {
        self.signer = signer
        self.catalogue = Catalogue(registry: signer.registry)
    }
}
