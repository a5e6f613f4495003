import Foundation
import Testing
@_spi(Testing) @testable import WebAppLaunch

@Suite("Only canonical base64url of bounded size is accepted", .tags(.securityRegression, .encoding))
struct EncodingAttackTests {
    static let rows: [AttackRow] = {
        let token = AttackFixtures.signedToken
        let middle = token.index(token.startIndex, offsetBy: token.count / 2)
        let twoTrailing = AttackFixtures.forge(withBlobCountModulo3: 1).token
        let threeTrailing = AttackFixtures.forge(withBlobCountModulo3: 2).token
        let whole = AttackFixtures.forge(withBlobCountModulo3: 0).token
        func raiseTrailingBit(_ text: String) -> String {
            let value = ReferenceBase64URL.alphabet.firstIndex(of: text.last!)!
            return String(text.dropLast()) + String(ReferenceBase64URL.alphabet[value | 1])
        }
        var rows: [AttackRow] = [
            .token("a token of two trailing characters is accepted as it is", twoTrailing, expect: nil),
            .token("a token of three trailing characters is accepted as it is", threeTrailing, expect: nil),
            .token("a token without trailing characters is accepted as it is", whole, expect: nil),
            .token("`==` padding", twoTrailing + "==", expect: .malformed),
            .token("a single `=` on a token that would need two", twoTrailing + "=", expect: .malformed),
            .token("`=` padding", threeTrailing + "=", expect: .malformed),
            .token("padding on a token that needs none", whole + "====", expect: .malformed),
            .token("non-canonical trailing bits after two characters", raiseTrailingBit(twoTrailing), expect: .malformed),
            .token("non-canonical trailing bits after three characters", raiseTrailingBit(threeTrailing), expect: .malformed),
            .token("the standard base64 alphabet and padding", ReferenceBase64URL.standardBase64(AttackFixtures.blob(of: twoTrailing)), expect: .malformed),
            .token("a `+` in place of one character", "+" + token.dropFirst(), expect: .malformed),
            .token("a `/` in place of one character", String(token.dropLast()) + "/", expect: .malformed),
            .token("a leading space", " " + token, expect: .malformed),
            .token("a trailing newline", token + "\n", expect: .malformed),
            .token("a trailing CRLF", token + "\r\n", expect: .malformed),
            .token("a tab in the middle", String(token[..<middle]) + "\t" + String(token[middle...]), expect: .malformed),
            .token("a space in the middle", String(token[..<middle]) + " " + String(token[middle...]), expect: .malformed),
            .token("a percent-encoded first character", "%41" + token.dropFirst(), expect: .malformed),
            .token("a Cyrillic look-alike of `A`", "\u{0410}" + token.dropFirst(), expect: .malformed),
            .token("a NUL character", String(token[..<middle]) + "\u{0}" + String(token[middle...]), expect: .malformed),
            .token("a full stop", String(token[..<middle]) + "." + String(token[middle...]), expect: .malformed),
            .token("an empty token", "", expect: .malformed),
            .token("16384 zero characters decode but carry version 0", String(repeating: "A", count: 16_384), expect: .unsupportedVersion),
            .token("16385 characters are too large", String(repeating: "A", count: 16_385), expect: .tooLarge),
            .token("16385 characters that are not even base64url are too large", String(repeating: "!", count: 16_385), expect: .tooLarge),
            .token("a valid token is too large for a 128-character policy", token, verifier: Fixtures.verifier(policy: VerificationPolicy(maximumTokenLength: 128)), expect: .tooLarge),
            .token(
                "a valid token of exactly the policy's limit is accepted",
                token,
                verifier: Fixtures.verifier(policy: VerificationPolicy(maximumTokenLength: token.count)),
                expect: nil
            ),
            .token(
                "a valid token one character over the policy's limit is too large",
                token,
                verifier: Fixtures.verifier(policy: VerificationPolicy(maximumTokenLength: token.count - 1)),
                expect: .tooLarge
            ),
        ]
        // Size is checked first: an oversize token whose kid is unknown is still too large,
        // and the same shape under the limit is an unknown key.
        let oversize = TokenForge().with {
            $0.keyring = AttackFixtures.impostorKeyring
            $0.kid = Array("nobody".utf8)
            $0.macKid = "nobody"
            $0.body = Array(repeating: 0x5A, count: 12_400)
        }
        let undersize = oversize.with { $0.body = Array(repeating: 0x5A, count: 100) }
        rows.append(.token("an oversize token with an unknown kid is too large, not unknown", oversize.token, expect: .tooLarge))
        rows.append(.token("the same token under the limit is an unknown key", undersize.token, expect: .unknownKey))
        rows.append(.token("an oversize token with a revoked kid is too large", oversize.with {
            $0.keyring = Fixtures.keyring
            $0.kid = Array("gone".utf8)
            $0.macKid = "gone"
        }.token, expect: .tooLarge))
        rows.append(.token("an oversize token with version 9 is too large", oversize.with { $0.version = 9 }.token, expect: .tooLarge))
        return rows
    }()

    @Test("padding, foreign characters, whitespace, trailing bits and oversize tokens give exactly the expected code", arguments: rows)
    func encoding(_ row: AttackRow) {
        row.check()
    }

    @Test("the oversize rows really are over the limit, and the undersize one under it")
    func oversizePremise() throws {
        let oversize = try #require(Self.rows.first { $0.name.hasPrefix("an oversize token with an unknown kid") })
        let undersize = try #require(Self.rows.first { $0.name.hasPrefix("the same token under the limit") })
        #expect(oversize.presentedText.utf8.count > VerificationPolicy().maximumTokenLength)
        #expect(undersize.presentedText.utf8.count < VerificationPolicy().maximumTokenLength)
    }
}
