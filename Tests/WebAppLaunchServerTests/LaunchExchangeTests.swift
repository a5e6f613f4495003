import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@_spi(Testing) import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppRegistry
import WebAppLaunchTestSupport

@Suite("A valid launch is exchanged for a session cookie and a redirect to the clean URL")
struct LaunchExchangeTests {
    static let apps = [Fixtures.magazin, Fixtures.bonus]

    @Test("a valid launch answers 303 to the registered path and query with an HttpOnly, SameSite=Lax, path-scoped 30-minute cookie", arguments: Transport.allCases, apps)
    func validLaunchRedirectsWithCookie(transport: Transport, app: WebApp) async throws {
        let token = Fixtures.token(for: app)
        try await TestServer().test { client in
            let response = try await client.launch(token, at: app, via: transport)
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == Fixtures.cleanTarget(of: app))
            #expect(response.headers[.location]?.contains("launch") == false)
            #expect(response.setCookies.count == 1)
            let cookie = try #require(response.sessionCookie)
            #expect(!cookie.value.isEmpty)
            #expect(cookie.has("HttpOnly"))
            #expect(cookie["SameSite"] == "Lax")
            #expect(cookie["Path"] == app.url.path)
            #expect(cookie["Max-Age"] == "1800")
            #expect(!cookie.has("Secure"), "the public URL is plain http on loopback")
            #expect(!cookie.has("Domain"))
            #expect(
                response.setCookies == ["\(cookie.name)=\(cookie.value); Max-Age=1800; Path=\(app.url.path); HttpOnly; SameSite=Lax"],
                "the attributes, and only they, in one fixed order"
            )
            #expect(!response.everything.contains(token))
        }
    }

    @Test("the launch URL the signer prints is accepted as it is, registered query included", arguments: apps)
    func signerLaunchURLIsAccepted(app: WebApp) async throws {
        let target = Fixtures.launchTarget(for: app)
        try await TestServer().test { client in
            let response = try await client.get(target)
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == Fixtures.cleanTarget(of: app))
        }
    }

    @Test("following the redirect with the cookie shows the page with the user's names, and a reload with the cookie works", arguments: Transport.allCases, apps)
    func followAndReload(transport: Transport, app: WebApp) async throws {
        let token = Fixtures.token(for: app)
        try await TestServer().test { client in
            let launch = try await client.launch(token, at: app, via: transport)
            let location = try #require(launch.headers[.location])
            let cookie = try #require(launch.sessionCookie?.value)
            for _ in 0..<2 {
                let page = try await client.get(location, cookie: cookie)
                #expect(page.status == .ok)
                #expect(page.headers[.contentType] == "text/html; charset=utf-8")
                #expect(page.text.contains(#"<span id="first-name">Jürgen-Quirin</span>"#))
                #expect(page.text.contains(#"<span id="last-name">Großmann-Zydeck</span>"#))
                #expect(page.text.contains(#"<dd id="kvnr">A********0</dd>"#))
                #expect(page.text.contains(#"data-app-id="\#(app.id)""#))
                #expect(!page.text.contains(Fixtures.user.kvnumber), "only the masked KVNR is shown")
                #expect(!page.text.contains(Fixtures.user.accessToken))
                #expect(page.setCookies.isEmpty, "a reload does not mint a new session")
            }
        }
    }

    @Test("the session cookie is sealed: it carries no name, KVNR or access token in readable form")
    func cookieIsSealed() async throws {
        try await TestServer().test { client in
            let cookie = try await client.sessionCookie(for: Fixtures.token(for: Fixtures.magazin), at: Fixtures.magazin)
            let decoded = String(decoding: Base64URL.decode(cookie) ?? [], as: UTF8.self)
            for secret in [Fixtures.user.firstName, Fixtures.user.lastName, Fixtures.user.kvnumber, Fixtures.user.accessToken, "Jürgen", "A123456780"] {
                #expect(!cookie.contains(secret))
                #expect(!decoded.contains(secret))
            }
        }
    }

    @Test("with an https public URL the session cookie is Secure and __Host- prefixed (Path=/, named for the app)")
    func httpsPublicURLSetsSecure() async throws {
        let app = try WebApp(id: "healthmagazin", title: "Gesundheitsmagazin", url: RegisteredURL("https://magazin.example/apps/healthmagazin"))
        let keyring = try Keyring(keys: [KeyringKey(kid: "prod", status: .active, secret: Fixtures.secret(0x50))], isDevelopment: false)
        let registry = try Registry(apps: [app])
        let configuration = WebAppServerConfiguration(keyring: keyring, registry: registry, apps: [ServedApp(app)])
        let token = try LaunchSigner(keyring: keyring, registry: registry).launchToken(for: app.id, user: Fixtures.user, now: Fixtures.now)
        try await TestServer(configuration: configuration).test { client in
            let response = try await client.launch(token, at: app, via: .post)
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/apps/healthmagazin")
            let name = "__Host-webapp_launch_session_healthmagazin"
            let cookie = try #require(response.setCookies.compactMap(SetCookie.init).first { $0.name == name })
            #expect(cookie.has("Secure"))
            #expect(cookie.has("HttpOnly"))
            #expect(cookie["SameSite"] == "Lax")
            #expect(cookie["Path"] == "/")
            #expect(cookie["Domain"] == nil)
            var headers = HTTPFields()
            headers[.cookie] = "\(name)=\(cookie.value)"
            let page = try await client.execute(uri: "/apps/healthmagazin", method: .get, headers: headers)
            #expect(page.status == .ok)
        }
    }

    @Test("launches in signed mode and launches under a verify-only key are accepted too")
    func signedModeAndVerifyOnlyKey() async throws {
        let signed = Fixtures.token(for: Fixtures.magazin, mode: .signed)
        let rotatedOut = Fixtures.token(for: Fixtures.magazin, signer: Fixtures.signer(kid: "old", secret: 0x10))
        try await TestServer().test { client in
            for token in [signed, rotatedOut] {
                let response = try await client.launch(token, at: Fixtures.magazin, via: .get)
                #expect(response.status == .seeOther)
                #expect(response.sessionCookie != nil)
            }
        }
    }

    @Test("a launch is accepted up to one second before expiry plus skew")
    func acceptedAtTheEdgeOfTheWindow() async throws {
        let server = try TestServer()
        server.clock.advance(by: .seconds(60 + 60 - 1))
        try await server.test { client in
            let response = try await client.launch(Fixtures.token(for: Fixtures.magazin), at: Fixtures.magazin, via: .get)
            #expect(response.status == .seeOther)
        }
    }
}
