import Foundation
@_spi(Testing) @testable import WebAppLaunch
import WebAppRegistry

/// Base tokens and the independent rules that predict what an edited token must fail with.
enum AttackFixtures {
    /// The smallest structurally possible blob: version, mode, kid_len, a one-byte kid, iat,
    /// exp, nonce, app_len, a one-byte app, aud_len, a one-byte audience, body_len, MAC.
    static let minimumBlobCount = 1 + 1 + 1 + 1 + 8 + 8 + 16 + 1 + 1 + 2 + 1 + 4 + 32

    static let kidCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-".utf8)

    static func mint(
        _ mode: LaunchMode,
        app: WebApp = Fixtures.magazin,
        signer: LaunchSigner = Fixtures.signer,
        user: LaunchUser = Fixtures.user,
        now: UInt64 = Fixtures.nowSeconds,
        lifetime: UInt64 = 60
    ) -> String {
        try! signer.mint(for: app, user: user, mode: mode, lifetime: lifetime, now: now, randomness: nil).token
    }

    static let signedToken = mint(.signed)
    static let sealedToken = mint(.sealed)
    static func token(_ mode: LaunchMode) -> String { mode == .signed ? signedToken : sealedToken }

    static func blob(of token: String) -> [UInt8] { Array(Data(base64Encoded: standardBase64(token))!) }

    /// base64url (unpadded) to padded standard base64, for Foundation's decoder.
    static func standardBase64(_ token: String) -> String {
        var text = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return text
    }

    /// What flipping a bit of the blob of a token signed with the kid `current` must give.
    /// Byte 0 is the version, 1 the mode (a single bit never turns 1 into 2 or back),
    /// 2 the kid length (7), 3..<10 the kid; everything after is covered only by the MAC.
    static func expectedCodeForBitFlip(at index: Int, flippedByte: UInt8, kidLength: Int = 7) -> LaunchError.Code {
        switch index {
        case 0:
            return .unsupportedVersion
        case 1:
            return .unsupportedMode
        case 2:
            let length = Int(flippedByte)
            if length == 0 || length > 64 { return .malformed }
            // Shorter: a prefix of `current`, valid characters but no such key.
            if length < kidLength { return .unknownKey }
            // Longer: the kid runs into iat, whose first byte is 0x00.
            return .malformed
        case 3..<(3 + kidLength):
            return kidCharacters.contains(flippedByte) ? .unknownKey : .malformed
        default:
            return .badSignature
        }
    }

    /// What a prefix (or extension) of a valid token's text must give, by the rules of
    /// strict base64url and the minimum size; anything that decodes and keeps the kid
    /// intact fails at the MAC.
    static func expectedCodeForText(_ text: some StringProtocol) -> LaunchError.Code {
        let characters = Array(text)
        let count = characters.count
        if count % 4 == 1 { return .malformed }
        if count % 4 != 0, let last = characters.last {
            let value = ReferenceBase64URL.alphabet.firstIndex(of: last)!
            let unusedBits = count % 4 == 2 ? 0x0F : 0x03
            if value & unusedBits != 0 { return .malformed }
        }
        return count * 3 / 4 < minimumBlobCount ? .malformed : .badSignature
    }

    /// A forge whose blob length modulo 3 is `remainder` (so its text has unused trailing bits).
    static func forge(withBlobCountModulo3 remainder: Int) -> TokenForge {
        for extra in 0..<3 {
            var forge = TokenForge()
            forge.accessToken += Array(repeating: UInt8(ascii: "y"), count: extra)
            if forge.blob.count % 3 == remainder { return forge }
        }
        fatalError("unreachable")
    }

    /// A second keyring with a key under the same kid `current` but another secret.
    static let impostorKeyring = try! Keyring(
        keys: [
            KeyringKey(kid: "current", status: .active, secret: Fixtures.secret(0x99)),
            KeyringKey(kid: "nobody", status: .active, secret: Fixtures.secret(0x77)),
        ],
        isDevelopment: true
    )

    /// A keyring whose active key is the fixture keyring's verify-only key `old`.
    static let oldKeyActive = try! Keyring(
        keys: [KeyringKey(kid: "old", status: .active, secret: Fixtures.secret(0x10))],
        isDevelopment: true
    )

    /// The fixture keyring without `old`.
    static let currentOnly = try! Keyring(
        keys: [KeyringKey(kid: "current", status: .active, secret: Fixtures.secret(0x30))],
        isDevelopment: true
    )

    /// Strings that must never appear in an error's description.
    static let personalData: [String] = [
        Fixtures.user.accessToken, Fixtures.user.firstName, Fixtures.user.lastName, Fixtures.user.kvnumber,
    ]
}
