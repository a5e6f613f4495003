import Foundation
import Testing
@_spi(Testing) @testable import WebAppLaunch

@Suite("Claims inside an authentic token are still validated, and only after the MAC", .tags(.securityRegression, .claims))
struct ClaimsAttackTests {
    static func claimRows(_ mode: LaunchMode) -> [AttackRow] {
        let base = TokenForge().with { $0.mode = mode.rawValue }
        func claims(_ name: String, _ expected: LaunchError.Code?, _ change: (inout TokenForge) -> Void) -> AttackRow {
            .token("\(mode): \(name)", base.with(change).token, expect: expected)
        }
        func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
        return [
            claims("valid claims are accepted", nil) { _ in },
            claims("a first name in NFD", .invalidClaims) { $0.firstName = bytes("Ju\u{0308}rgen") },
            claims("a last name in NFD", .invalidClaims) { $0.lastName = bytes("Mu\u{0308}ller") },
            claims("a KVNR with a wrong check digit", .invalidClaims) { $0.kvnumber = bytes("A123456781") },
            claims("a KVNR with a lower-case letter", .invalidClaims) { $0.kvnumber = bytes("a123456780") },
            claims("a KVNR with a letter among the digits", .invalidClaims) { $0.kvnumber = bytes("A12345678O") },
            claims("a KVNR of nine characters", .invalidClaims) { $0.kvnumber = bytes("A12345678") },
            claims("a KVNR of eleven characters", .invalidClaims) { $0.kvnumber = bytes("A1234567800") },
            claims("a KVNR with full-width digits", .invalidClaims) { $0.kvnumber = bytes("A１２３４５６７８０") },
            claims("an empty KVNR", .invalidClaims) { $0.kvnumber = [] },
            claims("an empty access token (an app that gets none) is accepted", nil) { $0.accessToken = [] },
            claims("an access token with a space", .invalidClaims) { $0.accessToken = bytes("Bearer abc") },
            claims("an access token with a non-ASCII byte", .invalidClaims) { $0.accessToken = bytes("t\u{00F6}ken") },
            claims("an access token of 8193 bytes", .invalidClaims) { $0.accessToken = Array(repeating: 0x61, count: 8193) },
            claims("an access token of exactly 8192 bytes is accepted", nil) { $0.accessToken = Array(repeating: 0x61, count: 8192) },
            claims("an empty first name", .invalidClaims) { $0.firstName = [] },
            claims("a last name of 257 bytes", .invalidClaims) { $0.lastName = Array(repeating: 0x61, count: 257) },
            claims("a last name of exactly 256 bytes is accepted", nil) { $0.lastName = Array(repeating: 0x61, count: 256) },
            claims("a name with a bidi override", .invalidClaims) { $0.firstName = bytes("J\u{202E}negruJ") },
            claims("a name with a zero-width space", .invalidClaims) { $0.firstName = bytes("J\u{200B}ürgen") },
            claims("a name with a newline", .invalidClaims) { $0.lastName = bytes("Groß\nAdmin") },
            claims("a name with a leading space", .invalidClaims) { $0.firstName = bytes(" Jürgen") },
            claims("a name with a trailing no-break space", .invalidClaims) { $0.lastName = bytes("Groß\u{00A0}") },
            claims("a name that is not UTF-8", .invalidClaims) { $0.firstName = [0x4A, 0xFF, 0x72] },
            claims("a name with an overlong UTF-8 encoding", .invalidClaims) { $0.firstName = [0x4A, 0xC0, 0xAF] },
            claims("a claims block with a trailing byte", .invalidClaims) { $0.claimsBlock = $0.claims + [0] },
            claims("a claims block cut short", .invalidClaims) { $0.claimsBlock = Array($0.claims.dropLast()) },
            claims("a claims block of three fields", .invalidClaims) {
                $0.claimsBlock = TokenForge.prefixed16($0.accessToken) + TokenForge.prefixed16($0.firstName) + TokenForge.prefixed16($0.lastName)
            },
            claims("an empty claims block", .invalidClaims) { $0.claimsBlock = [] },
        ]
    }

    static let structureRows: [AttackRow] = {
        let base = TokenForge()
        return [
            .token("a properly MACed token whose body length is one short (trailing byte)", base.with { $0.bodyLength = UInt32($0.makeBody().count - 1) }.token, expect: .malformed),
            .token("a properly MACed token whose body length overruns the MAC", base.with { $0.bodyLength = UInt32($0.makeBody().count + 1) }.token, expect: .malformed),
            .token("a properly MACed token whose body length is UInt32.max", base.with { $0.bodyLength = UInt32.max }.token, expect: .malformed),
            .token("a properly MACed token whose audience is not UTF-8", base.with { $0.audience = [0x68, 0xFF] }.token, expect: .malformed),
        ]
    }()

    static let sealedRows: [AttackRow] = {
        let sealed = TokenForge().with { $0.mode = LaunchMode.sealed.rawValue }
        func flipped(_ forge: TokenForge, at offsetFromBodyStart: (Int) -> Int) -> String {
            var blob = forge.blob
            let bodyStart = forge.header.count + 4
            let bodyCount = forge.makeBody().count
            blob[bodyStart + offsetFromBodyStart(bodyCount)] ^= 0x01
            return ReferenceBase64URL.encode(blob)
        }
        return [
            .token("sealed: a ciphertext bit flipped (MAC unchanged) is a bad signature", flipped(sealed) { _ in 12 }, expect: .badSignature),
            .token("sealed: a tag bit flipped (MAC unchanged) is a bad signature", flipped(sealed) { $0 - 1 }, expect: .badSignature),
            .token("sealed: an IV bit flipped (MAC unchanged) is a bad signature", flipped(sealed) { _ in 0 }, expect: .badSignature),
            .token("sealed: a tag bit flipped and the token re-MACed fails GCM", sealed.with { $0.tamperTag = true }.token, expect: .invalidClaims),
            .token("sealed: a ciphertext bit flipped and the token re-MACed fails GCM", sealed.with { $0.tamperCiphertext = true }.token, expect: .invalidClaims),
            .token("sealed: an IV bit flipped and the token re-MACed fails GCM", sealed.with { $0.tamperIV = true }.token, expect: .invalidClaims),
            .token("sealed: associated data other than the header fails GCM", sealed.with { $0.associatedData = [] }.token, expect: .invalidClaims),
            .token("sealed: a body shorter than IV plus tag", sealed.with { $0.body = Array(repeating: 0, count: 27) }.token, expect: .invalidClaims),
            .token("sealed: an empty body", sealed.with { $0.body = [] }.token, expect: .invalidClaims),
            .token("sealed: plaintext claims under the sealed mode byte", sealed.with { $0.body = $0.claims }.token, expect: .invalidClaims),
            .token("signed: a sealed body under the signed mode byte", sealed.with { $0.body = $0.makeBody(); $0.mode = LaunchMode.signed.rawValue }.token, expect: .invalidClaims),
        ]
    }()

    /// Every row carries a claim, structure or audience fault that the MAC check must pre-empt.
    static let macFirstRows: [AttackRow] = {
        func badMAC(_ name: String, _ forge: TokenForge) -> AttackRow {
            var blob = forge.blob
            blob[blob.count - 1] ^= 0x01
            return .token(name, ReferenceBase64URL.encode(blob), expect: .badSignature)
        }
        let base = TokenForge()
        return [
            badMAC("an NFD name and a bad MAC", base.with { $0.firstName = Array("Ju\u{0308}rgen".utf8) }),
            badMAC("a bad KVNR check digit and a bad MAC", base.with { $0.kvnumber = Array("A123456781".utf8) }),
            badMAC("a garbage sealed body and a bad MAC", base.with { $0.mode = LaunchMode.sealed.rawValue; $0.body = Array(repeating: 0xEE, count: 64) }),
            badMAC("a broken body length and a bad MAC", base.with { $0.bodyLength = 0 }),
            badMAC("a wrong audience and a bad MAC", base.with { $0.audience = Array("https://evil.example/".utf8) }),
            badMAC("a wrong app and a bad MAC", base.with { $0.app = Array("bonus".utf8) }),
            badMAC("an invalid lifetime and a bad MAC", base.with { $0.expiresAt = $0.issuedAt }),
            badMAC("an empty audience and a bad MAC", base.with { $0.audience = [] }),
        ]
    }()

    @Test("invalid claims in a properly MACed token are rejected as invalid claims", arguments: claimRows(.signed) + claimRows(.sealed))
    func invalidClaims(_ row: AttackRow) {
        row.check()
    }

    @Test("broken structure in a properly MACed token is malformed", arguments: structureRows)
    func structure(_ row: AttackRow) {
        row.check()
    }

    @Test("sealed bodies: tampering is a bad signature, and a re-MACed tampering fails GCM", arguments: sealedRows)
    func sealedTampering(_ row: AttackRow) {
        row.check()
    }

    @Test("the MAC is checked before any claim or header field is interpreted", arguments: macFirstRows)
    func macBeforeClaims(_ row: AttackRow) {
        row.check()
    }
}
