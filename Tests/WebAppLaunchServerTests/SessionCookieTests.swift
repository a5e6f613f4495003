import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WebAppLaunchTestSupport
@_spi(Testing) import WebAppLaunch
@testable import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppRegistry

@Suite("Only a genuine, live session cookie for this app opens the page")
struct SessionCookieTests {
    static let magazin = Fixtures.magazin

    /// A session for the fixture user and app, sealed by a sealer of the caller's choice.
    static func sealedSession(by sealer: SessionSealer, expiresAt: UInt64) throws -> String {
        let verifier = try LaunchVerifier(keyring: Fixtures.keyring, app: magazin)
        let launch = try verifier.verify(token: Fixtures.token(for: magazin), now: Fixtures.now)
        return try sealer.sealSession(SessionPayload(launch: launch, expiresAt: expiresAt, includeAccessToken: true))
    }

    static func expectNoPage(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == .unauthorized, sourceLocation: sourceLocation)
        #expect(response.setCookies.isEmpty, sourceLocation: sourceLocation)
        #expect(!response.text.contains(Fixtures.user.firstName), sourceLocation: sourceLocation)
        #expect(!response.text.contains("A********0"), sourceLocation: sourceLocation)
    }

    @Test(
        "an accepted launch's cookie opens to the launch's user, app, key and launch id, with its access token only when it has one",
        arguments: [Fixtures.user, LaunchUser(accessToken: "", firstName: "Zoë", lastName: "Groß-Öztürk", kvnumber: "B551029382")]
    )
    func cookieCarriesTheLaunch(user: LaunchUser) throws {
        let verifier = try LaunchVerifier(keyring: Fixtures.keyring, app: Self.magazin)
        let launch = try verifier.verify(token: Fixtures.token(for: Self.magazin, user: user), now: Fixtures.now)
        let codec = SessionCookieCodec(sealer: SessionSealer(verifier: verifier), audiences: verifier.audiences)
        let expiresAt = UInt64(Fixtures.now.timeIntervalSince1970) + 1800
        let value = try codec.setCookieValue(for: launch, expiresAt: expiresAt, maxAge: 1800)
        // The event loop writes it to the wire unchecked (`UncheckedHeadValues`): it must be
        // legal in a field by construction, whatever the user's names hold.
        #expect(value.utf8.allSatisfy { (0x20...0x7E).contains($0) }, "printable ASCII only: no CR, LF, NUL, control or raw UTF-8")
        #expect(HTTPField(name: .setCookie, value: value).value == value, "HTTP Types would pass it unchanged")
        let pair = String(value.prefix { $0 != ";" })
        let session = try #require(codec.session(in: [.cookie: pair], now: expiresAt - 1))
        #expect(session == LaunchSession(launch: launch, expiresAt: expiresAt))
        #expect(session.launchID == launch.replayID.hex && session.appID == Self.magazin.id && session.kid == launch.header.kid)
        #expect(session.firstName == user.firstName && session.lastName == user.lastName && session.kvnumber == user.kvnumber)
        #expect(session.accessToken == (user.accessToken.isEmpty ? nil : user.accessToken))
        #expect(codec.session(in: [.cookie: pair], now: expiresAt) == nil, "not a second past its end")
    }

    @Test("a request with neither a launch nor a cookie gets 401 and no page", arguments: Transport.allCases)
    func noLaunchNoCookie(transport: Transport) async throws {
        let server = try TestServer()
        try await server.test { client in
            let response = switch transport {
            case .get: try await client.get("/apps/healthmagazin", json: true)
            case .post: try await client.postForm("/apps/healthmagazin", form: "", json: true)
            }
            Self.expectNoPage(response)
            #expect(response.jsonObject?["error"] == "no_session")
        }
        #expect(server.logs.lines("launch.rejected", where: "code", is: "no_session").count == 1)
    }

    @Test("a well-formed session sealed under the right kid but another secret is a forgery and opens nothing")
    func forgedUnderAnotherSecret() async throws {
        let attacker = try Keyring(keys: [KeyringKey(kid: "current", status: .active, secret: Fixtures.secret(0x99))], isDevelopment: true)
        let forged = try Self.sealedSession(by: SessionSealer(keyring: attacker, appID: Self.magazin.id), expiresAt: UInt64.max / 2)
        // The same session sealed with the real key opens the page: the forgery fails only for its key.
        let genuine = try Self.sealedSession(by: SessionSealer(keyring: Fixtures.keyring, appID: Self.magazin.id), expiresAt: UInt64.max / 2)
        try await TestServer().test { client in
            Self.expectNoPage(try await client.get("/apps/healthmagazin", cookie: forged))
            #expect(try await client.get("/apps/healthmagazin", cookie: genuine).status == .ok)
        }
    }

    @Test("cookies that are not sealed sessions open nothing", arguments: [
        "", "x", "garbage-value", String(repeating: "A", count: 200),
        Base64URL.encode(Array(#"{"appID":"healthmagazin","kid":"current","firstName":"Eve","lastName":"Mallory","kvnumber":"A123456780","launchID":"00","expiresAt":99999999999}"#.utf8)),
        String(repeating: "A", count: 9000),
    ])
    func nonSessionCookies(value: String) async throws {
        try await TestServer().test { client in
            Self.expectNoPage(try await client.get("/apps/healthmagazin", cookie: value))
        }
    }

    @Test("a genuine cookie with any one character changed opens nothing", arguments: [0, 1, 3, 20, 40, -30, -2])
    func tamperedCookie(position: Int) async throws {
        try await TestServer().test { client in
            let cookie = try await client.sessionCookie(for: Fixtures.token(for: Self.magazin), at: Self.magazin)
            #expect(try await client.get("/apps/healthmagazin", cookie: cookie).status == .ok)
            var characters = Array(cookie)
            let index = position < 0 ? characters.count + position : position
            characters[index] = characters[index] == "A" ? "B" : "A"
            let tampered = String(characters)
            #expect(tampered != cookie)
            Self.expectNoPage(try await client.get("/apps/healthmagazin", cookie: tampered))
        }
    }

    @Test("a session cookie opens the page until its 1800 seconds are over, and not a second longer")
    func expiredCookie() async throws {
        let server = try TestServer()
        try await server.test { client in
            let cookie = try await client.sessionCookie(for: Fixtures.token(for: Self.magazin), at: Self.magazin)
            server.clock.advance(by: .seconds(1799))
            #expect(try await client.get("/apps/healthmagazin", cookie: cookie).status == .ok)
            server.clock.advance(by: .seconds(1))
            Self.expectNoPage(try await client.get("/apps/healthmagazin", cookie: cookie))
            server.clock.advance(by: .seconds(86_400))
            Self.expectNoPage(try await client.get("/apps/healthmagazin", cookie: cookie))
        }
    }

    @Test("a cookie for one app does not open another", arguments: [
        (Fixtures.magazin, Fixtures.bonus), (Fixtures.bonus, Fixtures.magazin),
    ])
    func cookieIsBoundToItsApp(issuedFor: WebApp, presentedAt: WebApp) async throws {
        try await TestServer().test { client in
            let cookie = try await client.sessionCookie(for: Fixtures.token(for: issuedFor), at: issuedFor)
            #expect(try await client.get(Fixtures.cleanTarget(of: issuedFor), cookie: cookie).status == .ok)
            Self.expectNoPage(try await client.get(Fixtures.cleanTarget(of: presentedAt), cookie: cookie))
        }
    }

    @Test("a sealer seals under its newest active key only: none active is no_signing_key, and a verify-only key still opens what it sealed before")
    func sealsUnderTheActiveKeyOnly() throws {
        let cookie = try Self.sealedSession(by: SessionSealer(keyring: Fixtures.keyring, appID: Self.magazin.id), expiresAt: UInt64.max / 2)
        let verifyOnly = try Fixtures.keyring.setting(.verifyOnly, forKeyID: "current")
        let retired = try SessionSealer(keyring: verifyOnly, appID: Self.magazin.id)
        let refusal = #expect(throws: LaunchError.self) { try Self.sealedSession(by: retired, expiresAt: UInt64.max / 2) }
        #expect(refusal?.code == .noSigningKey)
        #expect(retired.openSession(cookie, now: 0)?.kvnumber == Fixtures.user.kvnumber)

        // A rotation seals under the new kid, and only the rotated sealer opens that cookie.
        let rotated = try Fixtures.keyring.adding(KeyringKey(kid: "next", status: .active, secret: Fixtures.secret(0x41)))
        let next = try Self.sealedSession(by: SessionSealer(keyring: rotated, appID: Self.magazin.id), expiresAt: UInt64.max / 2)
        #expect(try SessionSealer(keyring: rotated, appID: Self.magazin.id).openSession(next, now: 0) != nil)
        #expect(try SessionSealer(keyring: Fixtures.keyring, appID: Self.magazin.id).openSession(next, now: 0) == nil)
    }

    @Test("a cookie sealed under a key that is later revoked opens nothing after the rotation")
    func cookieUnderRevokedKey() async throws {
        let cookie = try await TestServer().test { client in
            try await client.sessionCookie(for: Fixtures.token(for: Self.magazin), at: Self.magazin)
        }
        var configuration = Fixtures.configuration()
        configuration.keyring = try Fixtures.keyring
            .setting(.revoked, forKeyID: "current")
            .adding(KeyringKey(kid: "next", status: .active, secret: Fixtures.secret(0x40)))
        try await TestServer(configuration: configuration).test { client in
            Self.expectNoPage(try await client.get("/apps/healthmagazin", cookie: cookie))
        }
        // Control: the same cookie still opens a server that kept the key.
        try await TestServer().test { client in
            let page = try await client.get("/apps/healthmagazin", cookie: cookie)
            #expect(page.status == .ok)
        }
    }
}
