import Foundation
import Testing
@_spi(Testing) @testable import WebAppLaunch
import WebAppRegistry

/// Per-app keys (issue 13, SPEC.md §2.2): a partner holding one app's app keyring can verify
/// that app's launches and nothing else. It cannot mint, and nothing it can compute is
/// accepted by another app's verifier.
@Suite("Per-app keys: an app keyring verifies its own app and nothing else", .tags(.keySelection, .securityRegression))
struct AppKeyIsolationTests {
    static let launcher = Fixtures.keyring
    static let magazinKeyring = try! launcher.exportingApp(Fixtures.magazin.id)
    static let bonusKeyring = try! launcher.exportingApp(Fixtures.bonus.id)

    static func appKey(_ keyring: Keyring, kid: String) -> [UInt8] { keyring.key(kid: kid)!.secret.bytes }

    /// A forge for the bonus app's header (app id, audience), MACed and sealed with keys of
    /// the caller's choice.
    static func bonusForge(keyring: Keyring, keysOf app: String, mode: LaunchMode = .signed, kid: String = "current") -> TokenForge {
        TokenForge().with {
            $0.mode = mode.rawValue
            $0.kid = Array(kid.utf8)
            $0.app = Array("bonus".utf8)
            $0.audience = Array(Fixtures.bonus.url.description.utf8)
            $0.keyring = keyring
            $0.macApp = app
            $0.sealApp = app
            $0.macKid = kid
            $0.sealKid = kid
        }
    }

    static func code(_ body: () throws -> Void) -> KeyringError.Code? {
        do {
            try body()
            return nil
        } catch let error as KeyringError {
            return error.code
        } catch {
            Issue.record("an unexpected error: \(error)")
            return nil
        }
    }

    /// A signer whose only key is `kid` with the fixture secret `fill`.
    static func signer(kid: String, secret fill: UInt8) -> LaunchSigner {
        let keyring = try! Keyring(keys: [KeyringKey(kid: kid, status: .active, secret: Fixtures.secret(fill))], isDevelopment: true)
        return try! LaunchSigner(keyring: keyring, registry: Fixtures.registry)
    }

    @Test("a token minted for one app is rejected by the other app's app-keyring verifier with bad_signature", arguments: LaunchMode.allCases, [
        (Fixtures.bonus, Fixtures.magazin), (Fixtures.magazin, Fixtures.bonus),
    ])
    func tokenForAnotherApp(mode: LaunchMode, apps: (mintedFor: WebApp, verifiedBy: WebApp)) throws {
        let token = AttackFixtures.mint(mode, app: apps.mintedFor)
        let ownKeyring = try Self.launcher.exportingApp(apps.verifiedBy.id)
        let verifier = try LaunchVerifier(keyring: ownKeyring, app: apps.verifiedBy)
        AttackRow.token("minted for \(apps.mintedFor.id)", token, verifier: verifier, expect: .badSignature).check()
        // The launcher keyring's verifier for that app says the same: the keys differ per app.
        AttackRow.token("launcher", token, verifier: try LaunchVerifier(keyring: Self.launcher, app: apps.verifiedBy), expect: .badSignature).check()
        // Control: the app the token was minted for accepts it with its own app keyring.
        let control = try LaunchVerifier(keyring: try Self.launcher.exportingApp(apps.mintedFor.id), app: apps.mintedFor)
        AttackRow.token("control", token, verifier: control, expect: nil).check()
    }

    @Test("a kid added to the launcher keyring after the export is unknown_key to the app keyring until it is re-exported")
    func kidAddedAfterExport() throws {
        let rotated = try Self.launcher.adding(KeyringKey(kid: "next", status: .active, secret: Fixtures.secret(0x40)))
        let token = AttackFixtures.mint(.sealed, signer: try LaunchSigner(keyring: rotated, registry: Fixtures.registry))
        AttackRow.token("stale export", token, verifier: try LaunchVerifier(keyring: Self.magazinKeyring, app: Fixtures.magazin), expect: .unknownKey).check()
        let reexported = try rotated.exportingApp(Fixtures.magazin.id)
        AttackRow.token("re-exported", token, verifier: try LaunchVerifier(keyring: reexported, app: Fixtures.magazin), expect: nil).check()
    }

    @Test("an app keyring refuses at configuration time to verify or seal sessions for another app (app_mismatch)")
    func refusesAnotherApp() {
        #expect(Self.code { _ = try LaunchVerifier(keyring: Self.magazinKeyring, app: Fixtures.bonus) } == .appMismatch)
        #expect(Self.code { _ = try LaunchVerifier(keyring: Self.magazinKeyring, appID: "bonus", audiences: [Fixtures.magazin.url]) } == .appMismatch)
        #expect(Self.code { _ = try SessionSealer(keyring: Self.magazinKeyring, appID: "bonus") } == .appMismatch)
        // Its own app is fine.
        #expect(Self.code { _ = try LaunchVerifier(keyring: Self.magazinKeyring, app: Fixtures.magazin) } == nil)
        #expect(Self.code { _ = try SessionSealer(keyring: Self.magazinKeyring, appID: "healthmagazin") } == nil)
    }

    @Test("an app keyring cannot mint (not even for its own app), export app keys or take new keys (not_launcher_keyring)")
    func cannotMint() {
        #expect(Self.code { _ = try LaunchSigner(keyring: Self.magazinKeyring, registry: Fixtures.registry) } == .notLauncherKeyring)
        #expect(Self.code { _ = try LaunchSigner(keyring: Self.magazinKeyring, registry: Registry(apps: [Fixtures.magazin])) } == .notLauncherKeyring)
        #expect(Self.code { _ = try Self.magazinKeyring.exportingApp("bonus") } == .notLauncherKeyring)
        #expect(Self.code { _ = try Self.magazinKeyring.exportingApp("healthmagazin") } == .notLauncherKeyring)
        #expect(Self.code { _ = try Self.magazinKeyring.adding(KeyringKey(kid: "mine", status: .active, secret: Fixtures.secret(0x77))) } == .notLauncherKeyring)
    }

    @Test("one app's keys cannot open another app's sealed claims")
    func sealedClaimsStayClosed() throws {
        let token = AttackFixtures.mint(.sealed, app: Fixtures.bonus)
        let parsed = try TokenLayout.parse(try #require(Base64URL.decode(token)))
        let body = parsed.body
        let ivEnd = body.startIndex + AES256GCM.ivByteCount
        func open(with keyring: Keyring, app: String) throws -> [UInt8]? {
            let seal = try keyring.appKeys(for: app).entry(kid: "current")!.derived.seal
            return try? AES256GCM.open(body[ivEnd...], key: seal, iv: body[..<ivEnd], associatedData: parsed.headerBytes)
        }
        #expect(try open(with: Self.magazinKeyring, app: "healthmagazin") == nil)
        #expect(try open(with: Self.launcher, app: "healthmagazin") == nil)
        #expect(try open(with: Self.bonusKeyring, app: "bonus") != nil, "control: the bonus app keyring opens it")
    }

    @Test("one app's session cookies open no session with another app's keys, whichever keyring seals", arguments: [false, true])
    func sessionCookiesStayClosed(sealWithAppKeyring: Bool) throws {
        let payload = Array(#"{"appID":"bonus"}"#.utf8)
        let sealer = try SessionSealer(keyring: sealWithAppKeyring ? Self.bonusKeyring : Self.launcher, appID: "bonus")
        let cookie = try sealer.seal(payload)
        #expect(try SessionSealer(keyring: Self.magazinKeyring, appID: "healthmagazin").open(cookie) == nil)
        #expect(try SessionSealer(keyring: Self.launcher, appID: "healthmagazin").open(cookie) == nil)
        #expect(try SessionSealer(keyring: Self.bonusKeyring, appID: "bonus").open(cookie) == payload, "control")
        #expect(try SessionSealer(keyring: Self.launcher, appID: "bonus").open(cookie) == payload, "control")
    }

    /// What a holder of the healthmagazin app keyring can compute, aimed at the bonus app.
    static let attacks: [(name: String, token: String, expected: LaunchError.Code)] = {
        let magazinAsRoot = try! Keyring(
            keys: ["old", "gone", "current"].map { kid in
                try! KeyringKey(kid: kid, status: .active, secret: KeySecret(bytes: appKey(magazinKeyring, kid: kid)))
            },
            isDevelopment: true
        )
        let magazinAppKeyAsBonusMACKey = try! HMACSHA256Key(key: appKey(magazinKeyring, kid: "current"))
        let plain = bonusForge(keyring: magazinKeyring, keysOf: "healthmagazin")
        let direct = ReferenceBase64URL.encode(plain.unMACed + (try! magazinAppKeyAsBonusMACKey.authenticationCode(prefix: Labels.tokenMAC, message: plain.unMACed)))
        let genuineMagazin = AttackFixtures.mint(.sealed, app: Fixtures.magazin)
        return [
            ("a bonus header MACed with the magazin MAC key", plain.token, .badSignature),
            ("a bonus header, claims sealed and MACed with the magazin keys", bonusForge(keyring: magazinKeyring, keysOf: "healthmagazin", mode: .sealed).token, .badSignature),
            ("the magazin app key taken as a root secret to derive bonus keys", bonusForge(keyring: magazinAsRoot, keysOf: "bonus").token, .badSignature),
            ("the magazin app key taken as a root secret, sealed", bonusForge(keyring: magazinAsRoot, keysOf: "bonus", mode: .sealed).token, .badSignature),
            ("the magazin app key used directly as the bonus MAC key", direct, .badSignature),
            ("a bonus header under the verify-only kid with the magazin keys", bonusForge(keyring: magazinKeyring, keysOf: "healthmagazin", kid: "old").token, .badSignature),
            ("a bonus header under the revoked kid with the magazin keys", bonusForge(keyring: magazinKeyring, keysOf: "healthmagazin", kid: "gone").token, .revokedKey),
            ("a genuine magazin launch replayed at bonus", genuineMagazin, .badSignature),
            ("a genuine magazin launch with its MAC moved onto a bonus header", plain.token(keepingMACOf: TokenForge()), .badSignature),
        ]
    }()

    @Test("everything a holder of one app's app keyring can compute, fed to another app's verifier, is refused", arguments: attacks.indices, [false, true])
    func appKeyringHolderAttacks(index: Int, verifierHasAppKeyring: Bool) throws {
        let attack = Self.attacks[index]
        let verifier = try LaunchVerifier(keyring: verifierHasAppKeyring ? Self.bonusKeyring : Self.launcher, app: Fixtures.bonus)
        AttackRow.token(attack.name, attack.token, verifier: verifier, expect: attack.expected).check()
        let url = LaunchSigner.launchURL(audience: Fixtures.bonus.url, token: attack.token)
        AttackRow(attack.name, .url(url), verifier: verifier, expect: attack.expected).check()
    }

    @Test("session cookies a holder of one app's app keyring can seal open no session of another app", arguments: [false, true])
    func appKeyringHolderCookies(verifierHasAppKeyring: Bool) throws {
        let bonus = try SessionSealer(keyring: verifierHasAppKeyring ? Self.bonusKeyring : Self.launcher, appID: "bonus")
        let payload = Array(#"{"appID":"bonus","firstName":"Eve"}"#.utf8)
        // Sealed with the magazin sealer, and with the magazin app key taken as a root secret.
        let magazinAsRoot = try Keyring(keys: [KeyringKey(kid: "current", status: .active, secret: KeySecret(bytes: Self.appKey(Self.magazinKeyring, kid: "current")))], isDevelopment: true)
        let forgeries = [
            try SessionSealer(keyring: Self.magazinKeyring, appID: "healthmagazin").seal(payload),
            try SessionSealer(keyring: magazinAsRoot, appID: "bonus").seal(payload),
        ]
        for cookie in forgeries {
            #expect(bonus.open(cookie) == nil)
        }
    }

    @Test("an exported app keyring accepts and refuses exactly what the launcher keyring does for that app", arguments: LaunchMode.allCases)
    func exportIsEquivalent(mode: LaunchMode) throws {
        let tokens = [
            AttackFixtures.mint(mode),
            AttackFixtures.mint(mode, signer: Self.signer(kid: "old", secret: 0x10)),
            AttackFixtures.mint(mode, signer: Self.signer(kid: "gone", secret: 0x20)),
            AttackFixtures.mint(mode, signer: Self.signer(kid: "stranger", secret: 0x30)),
            AttackFixtures.mint(mode, app: Fixtures.bonus),
        ]
        let launcherVerifier = try LaunchVerifier(keyring: Self.launcher, app: Fixtures.magazin)
        let appVerifier = try LaunchVerifier(keyring: Self.magazinKeyring, app: Fixtures.magazin)
        func outcome(_ verifier: LaunchVerifier, _ token: String) -> LaunchError.Code? {
            do { _ = try verifier.verify(token: token, now: Fixtures.now); return nil } catch { return error.code }
        }
        let expected: [LaunchError.Code?] = [nil, nil, .revokedKey, .unknownKey, .badSignature]
        #expect(tokens.map { outcome(launcherVerifier, $0) } == expected)
        #expect(tokens.map { outcome(appVerifier, $0) } == expected)
    }

    @Test("retiring or revoking a kid in the launcher keyring and re-exporting carries the status over; the app keys stay the same")
    func rotationCarriesStatus() throws {
        let retired = try Self.launcher.setting(.verifyOnly, forKeyID: "current")
            .adding(KeyringKey(kid: "next", status: .active, secret: Fixtures.secret(0x40)))
        let revoked = try retired.setting(.revoked, forKeyID: "current")
        for (launcher, status) in [(retired, KeyStatus.verifyOnly), (revoked, .revoked)] {
            let exported = try launcher.exportingApp("healthmagazin")
            #expect(exported.appID == "healthmagazin")
            #expect(exported.keys.map(\.kid) == ["old", "gone", "current", "next"])
            #expect(exported.key(kid: "current")?.status == status)
            #expect(exported.key(kid: "next")?.status == .active)
            #expect(Self.appKey(exported, kid: "current") == Self.appKey(Self.magazinKeyring, kid: "current"))
        }
        let token = AttackFixtures.mint(.sealed)   // signed by `current` before the rotation
        AttackRow.token("retired", token, verifier: try LaunchVerifier(keyring: try retired.exportingApp("healthmagazin"), app: Fixtures.magazin), expect: nil).check()
        AttackRow.token("revoked", token, verifier: try LaunchVerifier(keyring: try revoked.exportingApp("healthmagazin"), app: Fixtures.magazin), expect: .revokedKey).check()
    }

    @Test("the app keys of one app differ for every app and kid, and an app keyring's keys are derived once, at load")
    func keysDiffer() throws {
        let apps = ["healthmagazin", "bonus", "healthmagazin2", "a", "b"]
        var seen = Set<[UInt8]>()
        for app in apps {
            for kid in ["old", "gone", "current"] {
                let derived = try Self.launcher.appKeys(for: app).entry(kid: kid)!.derived
                let macKey = try HKDF.deriveKey(secret: derived.appKey, info: Labels.macKey, count: 32)
                let replayKey = try HKDF.deriveKey(secret: derived.appKey, info: Labels.replayKey, count: 32)
                for key in [derived.appKey, macKey, derived.seal.bytes, derived.session.bytes, replayKey] {
                    #expect(seen.insert(key).inserted)
                }
            }
        }
        #expect(try Self.magazinKeyring.appKeys(for: "healthmagazin") === Self.magazinKeyring.appKeys(for: "healthmagazin"))
    }
}
