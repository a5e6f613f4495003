import Foundation
import Testing
@_spi(Testing) @testable import WebAppLaunch

@Suite("Errors never disclose the token, a claim or a MAC", .tags(.securityRegression, .disclosure))
struct ErrorDisclosureTests {
    static var allRows: [AttackRow] {
        TamperingAttackTests.bitFlips + TamperingAttackTests.truncations + TamperingAttackTests.appended
            + TamperingAttackTests.fieldEdits + KeyAttackTests.rows + TimeAttackTests.rows
            + AudienceAttackTests.audienceRows + AudienceAttackTests.parameterRows + EncodingAttackTests.rows
            + ClaimsAttackTests.claimRows(.signed) + ClaimsAttackTests.claimRows(.sealed)
            + ClaimsAttackTests.structureRows + ClaimsAttackTests.sealedRows + ClaimsAttackTests.macFirstRows
    }

    static func leaks(in text: String, row: AttackRow) -> [String] {
        var forbidden = AttackFixtures.personalData
        let presented = row.presentedText
        if presented.count >= 16 {
            forbidden.append(presented)
            forbidden.append(String(presented.prefix(16)))
            forbidden.append(String(presented.suffix(16)))
        }
        return forbidden.filter { text.contains($0) }
    }

    @Test("no attack row's error description contains the token text, access token, names or KVNR")
    func noAttackErrorLeaks() {
        let rows = Self.allRows
        var rejected = 0
        for row in rows {
            guard case .failure(let error) = row.run() else { continue }
            rejected += 1
            let leaked = Self.leaks(in: error.description, row: row) + Self.leaks(in: String(reflecting: error), row: row)
            #expect(leaked.isEmpty, "\(row.name): \(error.code) discloses \(leaked.count) forbidden strings")
        }
        #expect(rejected > 3000)
    }

    @Test("a bad-signature error contains neither the expected nor the presented MAC in any encoding", arguments: LaunchMode.allCases)
    func badSignatureHidesMACs(_ mode: LaunchMode) throws {
        var blob = AttackFixtures.blob(of: AttackFixtures.token(mode))
        blob[40] ^= 0x04
        let presented = Array(blob.suffix(32))
        let expected = TokenForge.mac(Array(blob.dropLast(32)))
        #expect(presented != expected)
        let error = try #require(throws: LaunchError.self) {
            try Fixtures.verifier().verify(token: ReferenceBase64URL.encode(blob), now: Fixtures.now)
        }
        #expect(error.code == .badSignature)
        let texts = [error.description, error.reason, String(reflecting: error)]
        for mac in [presented, expected] {
            let encodings = [Hex.encode(mac), Hex.encode(mac).uppercased(), ReferenceBase64URL.encode(mac), ReferenceBase64URL.standardBase64(mac), Hex.encode(mac.prefix(8))]
            for text in texts {
                for encoding in encodings {
                    #expect(!text.contains(encoding))
                }
            }
        }
    }

    @Test("a launch error carries only a code, a reason and an OpenSSL code: no bytes")
    func errorHoldsNoBytes() throws {
        let error = try #require(throws: LaunchError.self) {
            try Fixtures.verifier().verify(token: String(AttackFixtures.signedToken.dropLast(4)) + "AAAA", now: Fixtures.now)
        }
        let labels = Mirror(reflecting: error).children.compactMap(\.label)
        #expect(labels == ["code", "reason", "openSSLCode"])
        #expect(error.publicReason == .invalid)
    }

    @Test("claims, users and secrets print redacted")
    func redactedDescriptions() throws {
        let launch = try Fixtures.verifier().verify(token: AttackFixtures.sealedToken, now: Fixtures.now)
        for text in [String(describing: launch.claims), String(describing: Fixtures.user), String(describing: launch.claims.kvnr)] {
            #expect(AttackFixtures.personalData.allSatisfy { !text.contains($0) })
        }
        #expect(launch.claims.kvnr.masked == "A********0")
    }

    @Test("public reasons reveal only invalid, expired or already used", arguments: [
        (LaunchError.Code.badSignature, LaunchError.PublicReason.invalid), (.unknownKey, .invalid), (.wrongAudience, .invalid),
        (.invalidClaims, .invalid), (.expired, .expired), (.notYetValid, .expired), (.alreadyUsed, .alreadyUsed),
    ])
    func publicReasons(_ code: LaunchError.Code, _ reason: LaunchError.PublicReason) {
        #expect(LaunchError(code, "x").publicReason == reason)
    }
}
