import Foundation
import WebAppLaunch

/// The keys every suite signs and verifies with, defined once. Secrets are fixed bytes so a
/// failure reproduces; they are test keys only and never leave the tests.
public enum TestKeys {
    /// A 32-byte secret whose bytes count up from `fill`: distinct fills give distinct keys.
    public static func secret(_ fill: UInt8) -> KeySecret {
        try! KeySecret(bytes: (0..<32).map { UInt8($0) &+ fill })
    }

    /// A keyring in mid-rotation: `old` (verify-only), `gone` (revoked), `current` (active,
    /// signs launches and seals sessions). Marked development, so it serves loopback only.
    public static let rotation = try! Keyring(
        keys: [
            KeyringKey(kid: "old", status: .verifyOnly, secret: secret(0x10)),
            KeyringKey(kid: "gone", status: .revoked, secret: secret(0x20)),
            KeyringKey(kid: "current", status: .active, secret: secret(0x30)),
        ],
        isDevelopment: true
    )

    /// ``rotation``'s keys as production keys: what an https audience needs, since
    /// development keys serve loopback only (`DevelopmentKeyPolicy`).
    public static let rotationProduction = try! Keyring(keys: rotation.keys, isDevelopment: false)

    /// A keyring of one key, for signers with an unknown, revoked, verify-only or foreign key.
    public static func single(
        kid: String,
        secret: KeySecret,
        status: KeyStatus = .active,
        isDevelopment: Bool = true
    ) -> Keyring {
        try! Keyring(keys: [KeyringKey(kid: kid, status: status, secret: secret)], isDevelopment: isDevelopment)
    }

    /// The repository's published development keyring, `keys/dev.keyring.json`, read from
    /// the file (not the binary's embedded copy, so a test can compare the two).
    public static let development: Keyring = try! Keyring(contentsOfFile: RepositoryFile.developmentKeyring)
}
