import Foundation
import Testing
@_spi(Testing) @testable import WebAppLaunch

@Suite("The time window is enforced in both directions, overflow-safe", .tags(.securityRegression, .timeWindow))
struct TimeAttackTests {
    static let rows: [AttackRow] = {
        let iat = Fixtures.nowSeconds
        let exp = iat + 60
        let skew: UInt64 = 60
        let base = TokenForge()
        let token = base.token
        func window(_ issuedAt: UInt64, _ expiresAt: UInt64) -> String {
            base.with {
                $0.issuedAt = issuedAt
                $0.expiresAt = expiresAt
            }.token
        }
        let strict = Fixtures.verifier(policy: VerificationPolicy(clockSkew: 0))
        let shortLived = Fixtures.verifier(policy: VerificationPolicy(maximumLifetime: 120))
        return [
            .token("accepted at now = iat", token, now: iat, expect: nil),
            .token("accepted one second before expiry plus skew", token, now: exp + skew - 1, expect: nil),
            .token("expired at exactly expiry plus skew", token, now: exp + skew, expect: .expired),
            .token("expired a day later", token, now: exp + 86_400, expect: .expired),
            .token("accepted at issue time minus skew", token, now: iat - skew, expect: nil),
            .token("not yet valid one second before issue time minus skew", token, now: iat - skew - 1, expect: .notYetValid),
            .token("not yet valid at the epoch", token, now: 0, expect: .notYetValid),
            .token("expired at the end of time", token, now: UInt64.max, expect: .expired),
            .token("with no skew, expired at exactly exp", token, now: exp, verifier: strict, expect: .expired),
            .token("with no skew, accepted one second before exp", token, now: exp - 1, verifier: strict, expect: nil),
            .token("with no skew, not yet valid one second before iat", token, now: iat - 1, verifier: strict, expect: .notYetValid),
            .token("exp equal to iat is an invalid lifetime", window(iat, iat), expect: .invalidLifetime),
            .token("exp before iat is an invalid lifetime", window(iat, iat - 1), expect: .invalidLifetime),
            .token("exp of zero is an invalid lifetime", window(iat, 0), expect: .invalidLifetime),
            .token("a lifetime of exactly 300 seconds is accepted", window(iat, iat + 300), expect: nil),
            .token("a lifetime of 301 seconds is too long", window(iat, iat + 301), expect: .lifetimeTooLong),
            .token("a lifetime over a stricter policy's maximum is too long", window(iat, iat + 121), verifier: shortLived, expect: .lifetimeTooLong),
            .token("iat 0 and exp UInt64.max is too long, not a wrap-around", window(0, UInt64.max), expect: .lifetimeTooLong),
            .token("iat now and exp UInt64.max is too long", window(iat, UInt64.max), expect: .lifetimeTooLong),
            .token("a window at the end of time is not yet valid today", window(UInt64.max - 60, UInt64.max), expect: .notYetValid),
            .token("a window at the end of time is valid at the end of time (exp + skew overflows)", window(UInt64.max - 60, UInt64.max), now: UInt64.max, expect: nil),
            .token("a window ending one second before the end of time is valid inside it", window(UInt64.max - 2, UInt64.max - 1), now: UInt64.max - 2, expect: nil),
            .token("a window at the end of time is not yet valid just before iat minus skew", window(UInt64.max - 60, UInt64.max), now: UInt64.max - 121, expect: .notYetValid),
        ]
    }()

    @Test("expiry, not-yet-valid, skew boundaries and lifetime bounds give exactly the expected outcome", arguments: rows)
    func timeWindow(_ row: AttackRow) {
        row.check()
    }

    @Test("a verifier handed an absurd clock neither crashes nor accepts", arguments: [1e20, Double.infinity, -1.0, Double.nan])
    func absurdClock(_ seconds: Double) {
        let expected: LaunchError.Code = seconds > 0 ? .expired : .notYetValid
        let error = #expect(throws: LaunchError.self) {
            try Fixtures.verifier().verify(query: Substring("launch=\(AttackFixtures.signedToken)"), now: Date(timeIntervalSince1970: seconds))
        }
        #expect(error?.code == expected)
    }

    @Test("time checks come after the MAC: an expired token with a bad MAC is a bad signature")
    func expiredWithBadMAC() {
        var blob = TokenForge().blob
        blob[blob.count - 1] ^= 1
        AttackRow.token("", ReferenceBase64URL.encode(blob), now: Fixtures.nowSeconds + 10_000, expect: .badSignature).check()
    }
}
