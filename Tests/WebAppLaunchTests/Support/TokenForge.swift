import Foundation
@_spi(Testing) @testable import WebAppLaunch

/// Builds token blobs with arbitrary header and claim values, serialised here (not by
/// `TokenLayout`) and MACed with the real derived key of a fixture keyring, so that a test
/// reaches the check under test rather than stopping at the MAC.
struct TokenForge {
    var version: UInt8 = 2
    var mode: UInt8 = LaunchMode.signed.rawValue
    var kid: [UInt8] = Array("current".utf8)
    var issuedAt: UInt64 = Fixtures.nowSeconds
    var expiresAt: UInt64 = Fixtures.nowSeconds + 60
    var nonce: [UInt8] = (0..<16).map { UInt8($0 * 7 + 1) }
    var app: [UInt8] = Array("healthmagazin".utf8)
    var audience: [UInt8] = Array("https://magazin.example/app".utf8)

    var accessToken: [UInt8] = Array(Fixtures.user.accessToken.utf8)
    var firstName: [UInt8] = Array(Fixtures.user.firstName.utf8)
    var lastName: [UInt8] = Array(Fixtures.user.lastName.utf8)
    var kvnumber: [UInt8] = Array(Fixtures.user.kvnumber.utf8)
    /// Replaces the claims block built from the four fields.
    var claimsBlock: [UInt8]?
    /// Replaces the body (claims or sealed claims) entirely.
    var body: [UInt8]?
    /// Replaces the declared body length.
    var bodyLength: UInt32?

    /// Whose derived keys MAC and seal; the same keyring as the verifier's by default.
    var keyring: Keyring = Fixtures.keyring
    var macKid: String = "current"
    var sealKid: String = "current"
    /// Whose app keys MAC and seal: the fixture verifier's app by default (not the header's
    /// `app`, so a test can forge a header for another app under this app's keys).
    var macApp: String = "healthmagazin"
    var sealApp: String = "healthmagazin"
    var iv: [UInt8] = (0..<12).map { UInt8(0xA0 + $0) }
    /// Flips a bit of the GCM tag before MACing (the MAC stays correct).
    var tamperTag = false
    /// Flips a bit of the GCM ciphertext before MACing.
    var tamperCiphertext = false
    /// Flips a bit of the IV before MACing.
    var tamperIV = false
    /// Associated data for sealing; the header by default.
    var associatedData: [UInt8]?

    static func prefixed8(_ field: [UInt8]) -> [UInt8] { [UInt8(field.count)] + field }
    static func prefixed16(_ field: [UInt8]) -> [UInt8] { [UInt8(field.count >> 8), UInt8(field.count & 0xFF)] + field }
    static func bigEndian(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) } }
    static func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32($0))) } }

    var header: [UInt8] {
        [version, mode] + Self.prefixed8(kid) + Self.bigEndian(issuedAt) + Self.bigEndian(expiresAt) + nonce
            + Self.prefixed8(app) + Self.prefixed16(audience)
    }

    var claims: [UInt8] {
        claimsBlock ?? (Self.prefixed16(accessToken) + Self.prefixed16(firstName) + Self.prefixed16(lastName) + Self.prefixed16(kvnumber))
    }

    func makeBody() -> [UInt8] {
        if let body { return body }
        guard mode == LaunchMode.sealed.rawValue else { return claims }
        let seal = try! keyring.appKeys(for: sealApp).entry(kid: sealKid)!.derived.seal
        var sealed = try! AES256GCM.seal(claims, key: seal, iv: iv, associatedData: associatedData ?? header)
        if tamperTag { sealed[sealed.count - 1] ^= 0x01 }
        if tamperCiphertext { sealed[0] ^= 0x01 }
        var usedIV = iv
        if tamperIV { usedIV[0] ^= 0x01 }
        return usedIV + sealed
    }

    /// Everything before the MAC.
    var unMACed: [UInt8] {
        let body = makeBody()
        return header + Self.bigEndian(bodyLength ?? UInt32(body.count)) + body
    }

    static func mac(_ bytes: [UInt8], keyring: Keyring = Fixtures.keyring, kid: String = "current", app: String = "healthmagazin") -> [UInt8] {
        try! keyring.appKeys(for: app).entry(kid: kid)!.derived.mac.authenticationCode(prefix: Array("WebAppLaunch-v2 token".utf8), message: bytes)
    }

    /// The blob, properly MACed.
    var blob: [UInt8] {
        let bytes = unMACed
        return bytes + Self.mac(bytes, keyring: keyring, kid: macKid, app: macApp)
    }

    var token: String { ReferenceBase64URL.encode(blob) }

    /// This token's bytes with another token's MAC (the MAC "left as is" after an edit).
    func token(keepingMACOf original: TokenForge) -> String {
        ReferenceBase64URL.encode(unMACed + original.blob.suffix(32))
    }

    func with(_ change: (inout TokenForge) -> Void) -> TokenForge {
        var copy = self
        change(&copy)
        return copy
    }
}
