/// The key secrets this project has published (`keys/dev.keyring.json`), recognised by
/// fingerprint.
///
/// Anyone can read them in the repository, so a keyring holding one of them can be forged
/// for whatever its `"development"` flag says. ``Keyring/isDevelopment`` is therefore `true`
/// for any keyring holding one, and every guard that refuses development keys (the server on
/// a non-loopback address, the launcher console) applies.
///
/// Only SHA-256 fingerprints are listed: the secrets themselves need not be compiled in, and
/// a fingerprint is as public as the secret it names. When the shipped development keyring
/// is regenerated, add the new fingerprints here (`PublishedDevelopmentKeyTests` checks
/// that every shipped secret is listed); never remove one.
enum PublishedDevelopmentSecrets {
    /// SHA-256 of each published secret's bytes, lower-case hex.
    static let fingerprints: Set<String> = [
        "6eb4bfffce1c44b4801910efffd6a03ad865ba6240fb28fabab70ac311b06181",  // dev-2026-10
        "e3d76e892da9ed44654c22518bf44322c3c0726d34a75db0c377c95a9cf587c8",  // dev-2026-11
    ]

    /// Whether a secret is one of the published ones.
    /// - Parameter secret: A keyring secret.
    /// - Returns: `true` when its fingerprint is listed.
    /// - Throws: ``LaunchError`` when OpenSSL cannot hash.
    static func contains(_ secret: KeySecret) throws(LaunchError) -> Bool {
        let digest = try SHA256.hash(secret.bytes)
        return fingerprints.contains(digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 0x10 ? "0" + hex : hex
        }.joined())
    }
}
