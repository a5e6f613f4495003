/// The key secrets this project has published (`keys/dev.keyring.json`), and every app key
/// derived from them.
///
/// Anyone can read them in the repository, so a keyring holding one of them, or holding an
/// app key derived from one, can be forged for whatever its `"development"` flag says.
/// ``Keyring/isDevelopment`` is therefore `true` for any such keyring, and
/// ``DevelopmentKeyPolicy`` refuses it off loopback at every entry point.
///
/// The secrets themselves are compiled in (they are public): an app key is
/// HKDF(root secret, app id), so recognising an exported development app keyring for *any*
/// app id needs the root secrets, not only their fingerprints. When the shipped development
/// keyring is regenerated, add the new secrets here (`PublishedDevelopmentKeyTests` checks
/// that every shipped secret is listed); never remove one.
enum PublishedDevelopmentSecrets {
    /// The published root secrets, unpadded base64url, oldest first.
    private static let encoded = [
        "E2SgLEQJQkDnDuOc2VR0Dcl8G11n-9BWIwqcaNr8F3c",  // dev-2026-10
        "O_Gsf6qizN0B1aCcOsfw3anrfaybIHTRaGC01Gj04gk",  // dev-2026-11
    ]

    /// The published root secrets' bytes.
    static let rootSecrets: [[UInt8]] = encoded.map { text in
        guard let bytes = Base64URL.decode(text) else { fatalError("a published development secret is not base64url") }
        return bytes
    }

    /// Whether a secret is one of the published root secrets.
    /// - Parameter secret: A keyring secret.
    /// - Returns: `true` when it is published (public: no constant time needed).
    static func contains(_ secret: KeySecret) -> Bool {
        rootSecrets.contains { $0 == secret.bytes }
    }

    /// Whether an app key is a published secret or the app key one of them derives for
    /// `appID` (an exported development app keyring, flag or no flag).
    /// - Parameters:
    ///   - secret: An app keyring's key.
    ///   - appID: The app the keyring is for.
    /// - Returns: `true` when the key is public.
    /// - Throws: ``CryptoFailure`` when OpenSSL cannot derive.
    static func contains(appKey secret: KeySecret, appID: String) throws(CryptoFailure) -> Bool {
        if contains(secret) { return true }
        for root in rootSecrets where try DerivedKeys.appKey(rootSecret: root, appID: appID) == secret.bytes {
            return true
        }
        return false
    }
}
