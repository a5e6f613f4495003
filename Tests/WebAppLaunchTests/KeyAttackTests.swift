import Foundation
import Testing
@testable import WebAppLaunch

@Suite("Key selection never falls back to a default key", .tags(.securityRegression, .keySelection))
struct KeyAttackTests {
    static let rows: [AttackRow] = {
        let base = TokenForge()
        return [
            .token("a token labelled with the verify-only kid but MACed with the active key", base.with { $0.kid = Array("old".utf8) }.token, expect: .badSignature),
            .token("a token labelled with the active kid but MACed with the verify-only key", base.with { $0.macKid = "old" }.token, expect: .badSignature),
            .token("a token MACed under the kid `current` of another keyring", base.with { $0.keyring = AttackFixtures.impostorKeyring }.token, expect: .badSignature),
            .token("a kid that is not in the keyring, properly MACed with its own key", base.with {
                $0.keyring = AttackFixtures.impostorKeyring
                $0.kid = Array("nobody".utf8)
                $0.macKid = "nobody"
            }.token, expect: .unknownKey),
            // The kid is looked up byte for byte: a prefix, an extension or another case of a
            // real kid names no key.
        ] + ["curren", "currentt", "CURRENT", "Current", "current\u{0}"].map { kid in
            .token("a kid spelled almost like `current` (\(kid.debugDescription)) is unknown", base.with {
                $0.keyring = AttackFixtures.impostorKeyring
                $0.kid = Array(kid.utf8)
                $0.macKid = "nobody"
            }.token, expect: kid.contains("\u{0}") ? .malformed : .unknownKey)
        } + [
            .token("a revoked kid, properly MACed with the revoked key", base.with {
                $0.kid = Array("gone".utf8)
                $0.macKid = "gone"
            }.token, expect: .revokedKey),
            .token("a revoked kid, sealed mode, properly MACed with the revoked key", base.with {
                $0.mode = LaunchMode.sealed.rawValue
                $0.kid = Array("gone".utf8)
                $0.macKid = "gone"
                $0.sealKid = "gone"
            }.token, expect: .revokedKey),
            .token(
                "a token minted while the verify-only key was active still verifies",
                AttackFixtures.mint(.sealed, signer: try! LaunchSigner(keyring: AttackFixtures.oldKeyActive, registry: Fixtures.registry)),
                expect: nil
            ),
            .token(
                "a signed token minted while the verify-only key was active still verifies",
                AttackFixtures.mint(.signed, signer: try! LaunchSigner(keyring: AttackFixtures.oldKeyActive, registry: Fixtures.registry)),
                expect: nil
            ),
            .token(
                "a token whose key was removed from the keyring is unknown",
                AttackFixtures.mint(.sealed, signer: try! LaunchSigner(keyring: AttackFixtures.oldKeyActive, registry: Fixtures.registry)),
                verifier: Fixtures.verifier(keyring: AttackFixtures.currentOnly),
                expect: .unknownKey
            ),
            .token(
                "a token whose key was revoked after minting is rejected",
                AttackFixtures.signedToken,
                verifier: Fixtures.verifier(keyring: try! Fixtures.keyring.setting(.revoked, forKeyID: "current")),
                expect: .revokedKey
            ),
            .token(
                "a token whose key was retired to verify-only after minting still verifies",
                AttackFixtures.signedToken,
                verifier: Fixtures.verifier(keyring: try! Fixtures.keyring.setting(.verifyOnly, forKeyID: "current")),
                expect: nil
            ),
            .token("a sealed token MACed with the right key but sealed with another key's seal key", base.with {
                $0.mode = LaunchMode.sealed.rawValue
                $0.sealKid = "old"
            }.token, expect: .invalidClaims),
        ]
    }()

    @Test("unknown, revoked, swapped and retired kids give exactly the expected outcome", arguments: rows)
    func keySelection(_ row: AttackRow) {
        row.check()
    }
}
