import Foundation
import Testing
@testable import WebAppLaunch
import WebAppRegistry

@Suite("Tokens are bound to one registered URL, one app and its exact parameters", .tags(.securityRegression, .audienceBinding))
struct AudienceAttackTests {
    static let audienceRows: [AttackRow] = {
        let base = TokenForge()
        func audience(_ name: String, _ text: String, _ expected: LaunchError.Code?) -> AttackRow {
            .token(name, base.with { $0.audience = Array(text.utf8) }.token, expect: expected)
        }
        return [
            audience("the registered audience itself is accepted", "https://magazin.example/app", nil),
            audience("an audience differing only by scheme", "http://magazin.example/app", .wrongAudience),
            audience("an audience differing only by host case", "https://Magazin.example/app", .wrongAudience),
            audience("an audience with the default port spelled out", "https://magazin.example:443/app", .wrongAudience),
            audience("an audience with another port", "https://magazin.example:8443/app", .wrongAudience),
            audience("an audience that is a path prefix", "https://magazin.example/ap", .wrongAudience),
            audience("an audience with a longer path", "https://magazin.example/app/admin", .wrongAudience),
            audience("an audience with a trailing slash", "https://magazin.example/app/", .wrongAudience),
            audience("an audience with a query added", "https://magazin.example/app?x=1", .wrongAudience),
            audience("an audience on a look-alike host", "https://magazin.example.evil/app", .wrongAudience),
            audience("an audience with userinfo", "https://evil@magazin.example/app", .wrongAudience),
            audience("another registered app's URL", "https://bonus.example/start?tenant=demo&lang=de", .wrongAudience),
            audience("an empty audience", "", .malformed),
            .token("another app id with the right audience", base.with { $0.app = Array("bonus".utf8) }.token, expect: .wrongApp),
            .token("an app id differing by a suffix", base.with { $0.app = Array("healthmagazin2".utf8) }.token, expect: .wrongApp),
            .token("an app id differing by case", base.with { $0.app = Array("HealthMagazin".utf8) }.token, expect: .wrongApp),
            .token("an app id with a character outside the id alphabet", base.with { $0.app = Array("health/magazin".utf8) }.token, expect: .malformed),
            .token("an empty app id", base.with { $0.app = [] }.token, expect: .malformed),
            // Per-app keys (SPEC.md §2.2): the other app's launch is MACed under its own app
            // key, so it fails here at the MAC, before audience or app id are read.
            .token(
                "a genuine token for another registered app",
                AttackFixtures.mint(.sealed, app: Fixtures.bonus),
                expect: .badSignature
            ),
        ]
    }()

    static let parameterRows: [AttackRow] = {
        let token = AttackFixtures.signedToken
        let bonusToken = AttackFixtures.mint(.sealed, app: Fixtures.bonus)
        let bonus = Fixtures.verifier(Fixtures.bonus)
        func request(_ name: String, _ query: String?, form: String? = nil, verifier: LaunchVerifier = Fixtures.verifier(), _ expected: LaunchError.Code?) -> AttackRow {
            AttackRow(name, .request(query: query, form: form), verifier: verifier, expect: expected)
        }
        return [
            request("a query of only `launch` is accepted", "launch=\(token)", nil),
            request("a form of only `launch` is accepted", nil, form: "launch=\(token)", nil),
            request("`launch` repeated", "launch=\(token)&launch=\(token)", .malformed),
            request("`launch` in both query and form", "launch=\(token)", form: "launch=\(token)", .malformed),
            request("`launch` missing", "x=1", .malformed),
            request("no query at all", nil, .malformed),
            request("an empty query", "", .malformed),
            request("`launch` empty", "launch=", .malformed),
            request("`launch` without `=`", "launch", .malformed),
            request("`launch` in another letter case only", "Launch=\(token)", .malformed),
            request("an empty parameter after `launch`", "launch=\(token)&", .malformed),
            request("an extra parameter after `launch`", "launch=\(token)&debug=1", .unexpectedParameters),
            request("an extra parameter before `launch`", "utm_source=mail&launch=\(token)", .unexpectedParameters),
            request("an extra form field", nil, form: "launch=\(token)&next=%2F", .unexpectedParameters),
            request("the token percent-encoded in part", "launch=%41\(token.dropFirst())", .malformed),
            request("the registered parameters in order", "tenant=demo&lang=de&launch=\(bonusToken)", verifier: bonus, nil),
            request("the registered parameters reordered (compared as a set)", "lang=de&launch=\(bonusToken)&tenant=demo", verifier: bonus, nil),
            request("a registered parameter missing", "tenant=demo&launch=\(bonusToken)", verifier: bonus, .unexpectedParameters),
            request("every registered parameter missing", "launch=\(bonusToken)", verifier: bonus, .unexpectedParameters),
            request("a registered parameter's value changed", "tenant=demo&lang=en&launch=\(bonusToken)", verifier: bonus, .unexpectedParameters),
            request("a registered parameter's value percent-encoded", "tenant=%64emo&lang=de&launch=\(bonusToken)", verifier: bonus, .unexpectedParameters),
            request("a registered parameter repeated", "tenant=demo&lang=de&lang=de&launch=\(bonusToken)", verifier: bonus, .unexpectedParameters),
            request("a registered parameter's name in another case", "Tenant=demo&lang=de&launch=\(bonusToken)", verifier: bonus, .unexpectedParameters),
            request("a parameter added to the registered ones", "tenant=demo&lang=de&x=&launch=\(bonusToken)", verifier: bonus, .unexpectedParameters),
            AttackRow("a whole launch URL as minted is accepted", .url("https://magazin.example/app?launch=\(token)"), expect: nil),
            AttackRow("a launch URL on another host", .url("https://evil.example/app?launch=\(token)"), expect: .wrongAudience),
            AttackRow("a launch URL on another path", .url("https://magazin.example/other?launch=\(token)"), expect: .wrongAudience),
            AttackRow("a launch URL over plain http", .url("http://magazin.example/app?launch=\(token)"), expect: .wrongAudience),
            AttackRow("a launch URL with a fragment", .url("https://magazin.example/app?launch=\(token)#x"), expect: .malformed),
            AttackRow("a launch URL with a fragment whose `#` carries a combining mark", .url("https://magazin.example/app?launch=\(token)&x=#\u{301}"), expect: .malformed),
            AttackRow("a launch URL whose `?` carries a combining mark", .url("https://magazin.example/app?\u{301}launch=\(token)"), expect: .malformed),
            AttackRow("a launch URL without a query", .url("https://magazin.example/app"), expect: .malformed),
            AttackRow("a launch URL with an extra parameter", .url("https://magazin.example/app?launch=\(token)&x=1"), expect: .unexpectedParameters),
        ]
    }()

    @Test("an audience or app id that differs in any way is rejected", arguments: audienceRows)
    func audience(_ row: AttackRow) {
        row.check()
    }

    @Test("the request's parameters must be exactly `launch` plus the registered ones", arguments: parameterRows)
    func parameters(_ row: AttackRow) {
        row.check()
    }

    /// One app served at two registered URLs: a token is bound to the one it names, the
    /// verified launch reports that one, and the request must carry that one's parameters
    /// (not the other's, not a mix).
    @Test("a verifier with several audiences binds each token to the one it names, with that one's parameters")
    func severalAudiences() throws {
        let plain = Fixtures.magazin.url
        let tenant = try RegisteredURL("https://magazin.example/app?tenant=demo")
        let verifier = try LaunchVerifier(keyring: Fixtures.keyring, appID: Fixtures.magazin.id, audiences: [plain, tenant])
        let now = Date(timeIntervalSince1970: Double(Fixtures.nowSeconds))
        let forPlain = TokenForge().token
        let forTenant = TokenForge().with { $0.audience = Array(tenant.description.utf8) }.token

        let plainLaunch = try verifier.verify(query: "launch=\(forPlain)", now: now)
        #expect(plainLaunch.audience == plain)
        #expect(plainLaunch.header.audience == plain.description)
        let tenantLaunch = try verifier.verify(query: "tenant=demo&launch=\(forTenant)", now: now)
        #expect(tenantLaunch.audience == tenant)
        #expect(tenantLaunch.header.audience == tenant.description)

        func code(_ query: String) -> LaunchError.Code? {
            do { _ = try verifier.verify(query: Substring(query), now: now); return nil } catch { return error.code }
        }
        #expect(code("launch=\(forTenant)") == .unexpectedParameters)
        #expect(code("tenant=demo&launch=\(forPlain)") == .unexpectedParameters)
        let elsewhere = TokenForge().with { $0.audience = Array("https://magazin.example/other".utf8) }.token
        #expect(code("launch=\(elsewhere)") == .wrongAudience)
        // The refusal names every audience the verifier accepts, so an operator can see which
        // `--public-url` differs from the registered one.
        do {
            _ = try verifier.verify(query: Substring("launch=\(elsewhere)"), now: now)
            Issue.record("a token for an unregistered URL was accepted")
        } catch {
            #expect(error.reason.contains("\(plain.description) or \(tenant.description)"))
        }
    }
}
