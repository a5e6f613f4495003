import Foundation
import Testing
@_spi(Testing) @testable import WebAppLaunch

@Suite("Tampering with token bytes is always detected, with the exact code", .tags(.securityRegression, .tampering))
struct TamperingAttackTests {
    static func bitFlipRows(_ mode: LaunchMode) -> [AttackRow] {
        let blob = AttackFixtures.blob(of: AttackFixtures.token(mode))
        var rows: [AttackRow] = []
        for index in blob.indices {
            for bit in 0..<8 {
                var flipped = blob
                flipped[index] ^= 1 << bit
                rows.append(.token(
                    "\(mode): bit \(bit) of byte \(index) flipped",
                    ReferenceBase64URL.encode(flipped),
                    expect: AttackFixtures.expectedCodeForBitFlip(at: index, flippedByte: flipped[index])
                ))
            }
        }
        return rows
    }

    static let bitFlips = bitFlipRows(.signed) + bitFlipRows(.sealed)

    static func truncationRows(_ mode: LaunchMode) -> [AttackRow] {
        let token = AttackFixtures.token(mode)
        let blob = AttackFixtures.blob(of: token)
        let blobRows = (0..<blob.count).map { count in
            AttackRow.token(
                "\(mode): blob truncated to \(count) of \(blob.count) bytes",
                ReferenceBase64URL.encode(Array(blob.prefix(count))),
                expect: count < AttackFixtures.minimumBlobCount ? .malformed : .badSignature
            )
        }
        let textRows = (0..<token.count).map { count in
            AttackRow.token(
                "\(mode): text truncated to \(count) of \(token.count) characters",
                String(token.prefix(count)),
                expect: AttackFixtures.expectedCodeForText(token.prefix(count))
            )
        }
        return blobRows + textRows
    }

    static let truncations = truncationRows(.signed) + truncationRows(.sealed)

    static let appended: [AttackRow] = LaunchMode.allCases.flatMap { mode -> [AttackRow] in
        let token = AttackFixtures.token(mode)
        let blob = AttackFixtures.blob(of: token)
        return [
            .token("\(mode): one zero byte appended to the blob", ReferenceBase64URL.encode(blob + [0]), expect: .badSignature),
            .token("\(mode): the MAC appended a second time", ReferenceBase64URL.encode(blob + blob.suffix(32)), expect: .badSignature),
            .token("\(mode): a whole second token appended to the blob", ReferenceBase64URL.encode(blob + blob), expect: .badSignature),
            .token("\(mode): one character appended to the text", token + "A", expect: AttackFixtures.expectedCodeForText(token + "A")),
            .token("\(mode): four characters appended to the text", token + "AAAA", expect: .badSignature),
            .token("\(mode): the text given twice, joined by a comma", token + "," + token, expect: .malformed),
        ]
    }

    /// Each header field edited while the MAC is left as it was.
    static let fieldEdits: [AttackRow] = {
        let base = TokenForge()
        let sealedBase = base.with { $0.mode = LaunchMode.sealed.rawValue }
        func edit(_ name: String, _ expected: LaunchError.Code, from original: TokenForge = base, _ change: (inout TokenForge) -> Void) -> AttackRow {
            .token(name, original.with(change).token(keepingMACOf: original), expect: expected)
        }
        return [
            .token("the forged signed reference token is accepted", base.token, expect: nil),
            .token("the forged sealed reference token is accepted", sealedBase.token, expect: nil),
            edit("version changed to 1 (before per-app keys)", .unsupportedVersion) { $0.version = 1 },
            edit("version changed to 0", .unsupportedVersion) { $0.version = 0 },
            edit("version changed to 255", .unsupportedVersion) { $0.version = 255 },
            edit("mode changed from signed to sealed", .badSignature) { $0.mode = LaunchMode.sealed.rawValue },
            edit("mode changed from sealed to signed", .badSignature, from: sealedBase) { $0.mode = LaunchMode.signed.rawValue },
            edit("mode changed to 3", .unsupportedMode) { $0.mode = 3 },
            edit("mode changed to 0", .unsupportedMode) { $0.mode = 0 },
            edit("kid changed to the verify-only kid", .badSignature) { $0.kid = Array("old".utf8) },
            edit("kid changed to the revoked kid", .revokedKey) { $0.kid = Array("gone".utf8) },
            edit("kid changed to an unknown kid", .unknownKey) { $0.kid = Array("nobody".utf8) },
            edit("kid changed in letter case only", .unknownKey) { $0.kid = Array("Current".utf8) },
            edit("kid emptied", .malformed) { $0.kid = [] },
            edit("kid with a slash", .malformed) { $0.kid = Array("cur/ent".utf8) },
            edit("kid with a trailing NUL", .malformed) { $0.kid = Array("current".utf8) + [0] },
            edit("kid of 65 characters", .malformed) { $0.kid = Array(repeating: UInt8(ascii: "k"), count: 65) },
            edit("iat moved one second later", .badSignature) { $0.issuedAt += 1 },
            edit("iat moved one day earlier", .badSignature) { $0.issuedAt -= 86_400 },
            edit("exp extended by one second", .badSignature) { $0.expiresAt += 1 },
            edit("exp extended by a year", .badSignature) { $0.expiresAt += 31_536_000 },
            edit("nonce changed in one byte", .badSignature) { $0.nonce[15] ^= 0xFF },
            edit("nonce zeroed", .badSignature) { $0.nonce = Array(repeating: 0, count: 16) },
            edit("app id changed to another registered app", .badSignature) { $0.app = Array("bonus".utf8) },
            edit("audience changed to another registered URL", .badSignature) { $0.audience = Array("https://bonus.example/start?tenant=demo&lang=de".utf8) },
            edit("audience host upper-cased", .badSignature) { $0.audience = Array("https://MAGAZIN.example/app".utf8) },
            edit("access token replaced", .badSignature) { $0.accessToken = Array("stolen-token".utf8) },
            edit("KVNR replaced by another valid KVNR", .badSignature) { $0.kvnumber = Array("Z999999997".utf8) },
            edit("body length declared one byte shorter", .badSignature) { $0.bodyLength = UInt32($0.makeBody().count - 1) },
        ]
    }()

    @Test("every single-bit flip anywhere in a signed or sealed token is rejected with the code its byte position predicts", arguments: bitFlips)
    func bitFlip(_ row: AttackRow) {
        row.check()
    }

    @Test("the bit-flip expectations rest on the base token's layout: kid `current` followed by a zero iat byte", arguments: LaunchMode.allCases)
    func bitFlipPremise(_ mode: LaunchMode) {
        let blob = AttackFixtures.blob(of: AttackFixtures.token(mode))
        #expect(blob[0] == 2)
        #expect(blob[1] == mode.rawValue)
        #expect(blob[2] == 7)
        #expect(Array(blob[3..<10]) == Array("current".utf8))
        #expect(blob[10] == 0)
    }

    @Test("a token truncated at any length, as bytes or as text, is rejected", arguments: truncations)
    func truncation(_ row: AttackRow) {
        row.check()
    }

    @Test("bytes or characters appended to a token are rejected", arguments: appended)
    func appendedBytes(_ row: AttackRow) {
        row.check()
    }

    @Test("a header or claim field edited with the MAC left as is is rejected with its exact code", arguments: fieldEdits)
    func fieldEdit(_ row: AttackRow) {
        row.check()
    }
}
