import Foundation
import Testing
@_spi(Testing) @testable import WebAppLaunch
import WebAppRegistry

@Suite("The signer refuses what it must not mint")
struct SignerRefusalTests {
    static func code(_ body: () throws(LaunchError) -> Void) -> LaunchError.Code? {
        do throws(LaunchError) {
            try body()
            return nil
        } catch {
            return error.code
        }
    }

    static func user(accessToken: String = Fixtures.user.accessToken, firstName: String = "Jürgen", lastName: String = "Groß", kvnumber: String = "A123456780") -> LaunchUser {
        LaunchUser(accessToken: accessToken, firstName: firstName, lastName: lastName, kvnumber: kvnumber)
    }

    static func mintCode(_ user: LaunchUser, lifetime: UInt64 = 60, signer: LaunchSigner = Fixtures.signer, now: Date = Fixtures.now) -> LaunchError.Code? {
        code { () throws(LaunchError) in _ = try signer.launchURL(for: "healthmagazin", user: user, mode: .sealed, lifetime: lifetime, now: now) }
    }

    @Test("an unregistered app id or URL is an unknown app")
    func unknownApp() throws {
        let signer = Fixtures.signer
        #expect(Self.code { () throws(LaunchError) in _ = try signer.launchURL(for: "evil", user: Fixtures.user, now: Fixtures.now) } == .unknownApp)
        #expect(Self.code { () throws(LaunchError) in _ = try signer.launchToken(for: "HealthMagazin", user: Fixtures.user, now: Fixtures.now) } == .unknownApp)
        let unregistered = try RegisteredURL("https://evil.example/app")
        #expect(Self.code { () throws(LaunchError) in _ = try signer.launchURL(forRegisteredURL: unregistered, user: Fixtures.user, now: Fixtures.now) } == .unknownApp)
        let nearMiss = try RegisteredURL("https://magazin.example/app/")
        #expect(Self.code { () throws(LaunchError) in _ = try signer.launchURL(forRegisteredURL: nearMiss, user: Fixtures.user, now: Fixtures.now) } == .unknownApp)
        let sameURL = try RegisteredURL("HTTPS://Magazin.Example:443/app")
        let url = try signer.launchURL(forRegisteredURL: sameURL, user: Fixtures.user, now: Fixtures.now)
        #expect(url.hasPrefix("https://magazin.example/app?launch="))
    }

    @Test("invalid claims are refused with invalid_claims", arguments: [
        ("a KVNR of nine characters", user(kvnumber: "A12345678")),
        ("a KVNR with a lower-case letter", user(kvnumber: "a123456780")),
        ("a KVNR with a letter among the digits", user(kvnumber: "A12345678X")),
        ("a KVNR with a wrong check digit", user(kvnumber: "A123456781")),
        ("an empty KVNR", user(kvnumber: "")),
        ("an empty first name", user(firstName: "")),
        ("an empty last name", user(lastName: "")),
        ("a 257-byte first name", user(firstName: String(repeating: "a", count: 257))),
        ("a 257-byte last name of two-byte characters", user(lastName: String(repeating: "ß", count: 128) + "a")),
        ("a name with a control character", user(firstName: "J\u{0007}ürgen")),
        ("a name with a newline", user(lastName: "Groß\nX")),
        ("a name with a bidi override", user(lastName: "\u{202E}ßorG")),
        ("a name with a bidi isolate", user(lastName: "Gro\u{2066}ß")),
        ("a name with a zero-width joiner", user(firstName: "Jü\u{200D}rgen")),
        ("a name with a leading space", user(firstName: " Jürgen")),
        ("a name with a trailing space", user(lastName: "Groß ")),
        ("a name with a private-use character", user(firstName: "J\u{E000}")),
        ("an access token with a space", user(accessToken: "Bearer abc")),
        ("an access token with a newline", user(accessToken: "abc\n")),
        ("an access token with a non-ASCII character", user(accessToken: "tök")),
        ("an access token of 8193 bytes", user(accessToken: String(repeating: "a", count: 8193))),
    ])
    func invalidClaims(_ name: String, _ user: LaunchUser) {
        #expect(Self.mintCode(user) == .invalidClaims, "\(name)")
    }

    @Test("boundary claims are minted: 256-byte names, an 8192-byte or empty access token, inner spaces")
    func boundaryClaims() {
        #expect(Self.mintCode(Self.user(accessToken: "")) == nil)
        #expect(Self.mintCode(Self.user(firstName: String(repeating: "ß", count: 128))) == nil)
        #expect(Self.mintCode(Self.user(lastName: String(repeating: "a", count: 256))) == nil)
        #expect(Self.mintCode(Self.user(accessToken: String(repeating: "~", count: 8192))) == nil)
        #expect(Self.mintCode(Self.user(firstName: "Anna Maria", lastName: "von der Lühe")) == nil)
    }

    @Test("lifetimes outside 1 to 300 seconds are refused")
    func lifetimes() {
        #expect(Self.mintCode(Fixtures.user, lifetime: 301) == .lifetimeTooLong)
        #expect(Self.mintCode(Fixtures.user, lifetime: UInt64.max) == .lifetimeTooLong)
        #expect(Self.mintCode(Fixtures.user, lifetime: 0) == .invalidLifetime)
        #expect(Self.mintCode(Fixtures.user, lifetime: 300) == nil)
        #expect(Self.mintCode(Fixtures.user, lifetime: 1) == nil)
    }

    @Test("a keyring without an active key cannot sign")
    func noSigningKey() throws {
        let keyring = try Fixtures.keyring.setting(.verifyOnly, forKeyID: "current")
        #expect(keyring.signingKey == nil)
        #expect(Self.mintCode(Fixtures.user, signer: try LaunchSigner(keyring: keyring, registry: Fixtures.registry)) == .noSigningKey)
        let revoked = try Fixtures.keyring.setting(.revoked, forKeyID: "current")
        #expect(Self.mintCode(Fixtures.user, signer: try LaunchSigner(keyring: revoked, registry: Fixtures.registry)) == .noSigningKey)
    }

    @Test("the signer signs with the newest active key")
    func signsWithNewestActiveKey() throws {
        let rotated = try Fixtures.keyring.adding(KeyringKey(kid: "next", status: .active, secret: Fixtures.secret(0x50)))
        let token = try LaunchSigner(keyring: rotated, registry: Fixtures.registry).launchToken(for: "healthmagazin", user: Fixtures.user, now: Fixtures.now)
        #expect(try LaunchInspector.unverifiedHeader(of: token).kid == "next")
        #expect(try Fixtures.verifier(keyring: rotated).verify(token: token, now: Fixtures.now).header.kid == "next")
    }

    @Test("absurd issue times neither crash nor wrap: the expiry overflow is refused", arguments: [1e20, Double.infinity, Double.nan, -5.0])
    func absurdTimes(_ seconds: Double) {
        let now = Date(timeIntervalSince1970: seconds)
        let expected: LaunchError.Code? = seconds > 0 && seconds.isFinite || seconds == .infinity ? .invalidLifetime : nil
        #expect(Self.mintCode(Fixtures.user, now: now) == expected)
    }

    @Test("the launch URL is the registered URL plus `?launch=` or `&launch=`")
    func launchURLShape() throws {
        let plain = try Fixtures.signer.launchURL(for: "healthmagazin", user: Fixtures.user, now: Fixtures.now)
        let withQuery = try Fixtures.signer.launchURL(for: "bonus", user: Fixtures.user, now: Fixtures.now)
        #expect(plain.hasPrefix("https://magazin.example/app?launch="))
        #expect(withQuery.hasPrefix("https://bonus.example/start?tenant=demo&lang=de&launch="))
        let token = String(plain.dropFirst("https://magazin.example/app?launch=".count))
        #expect(token.utf8.allSatisfy { ReferenceBase64URL.alphabet.contains(Character(Unicode.Scalar($0))) })
    }
}
