import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppRegistry

/// The middleware library alone, in a plain Hummingbird app: what an embedding web app gets.
@Suite("The middleware works in any Hummingbird app: its handler reads its own form, and only launch forms are read")
struct MiddlewareStandaloneTests {
    static func application(
        audiences: [RegisteredURL] = [Fixtures.magazin.url],
        keyring: Keyring = Fixtures.keyring,
        unauthenticated: UnauthenticatedPolicy = .rejectionPage
    ) throws -> some ApplicationProtocol {
        let verifier = try LaunchVerifier(keyring: keyring, appID: Fixtures.magazin.id, audiences: audiences)
        let router = Router(context: WebAppRequestContext.self)
        router.add(middleware: SecurityHeadersMiddleware())
        let middleware = try LaunchVerificationMiddleware<WebAppRequestContext>(
            verifier: verifier,
            replayStore: InMemoryReplayStore(capacity: 64),
            clock: { Fixtures.now },
            unauthenticated: unauthenticated
        )
        for audience in audiences {
            let group = router.group(RouterPath(audience.path)).add(middleware: middleware)
            group.get { _, context in try context.requireLaunchSession().firstName }
            group.post { request, context -> String in
                _ = try context.requireLaunchSession()
                let body = try await request.body.collect(upTo: 1 << 20)
                return "handler read \(body.readableBytes) bytes: " + String(buffer: body).prefix(40)
            }
            group.put { _, context in try context.requireLaunchSession().firstName }
            group.post("upload") { request, context -> String in
                _ = try context.requireLaunchSession()
                return "upload of \(try await request.body.collect(upTo: 1 << 20).readableBytes) bytes"
            }
        }
        return Application(router: router)
    }

    @Test("the unauthenticated policy is decided where the session is missing: GET redirects, except on exempt paths; POST and rejected launches keep 401")
    func unauthenticatedPolicy() async throws {
        let signIn = try RedirectTarget("/signin?next=1")
        try await Self.application(unauthenticated: .redirect(to: signIn)).test(.router) { client async throws in
            let get = try await client.execute(uri: "/apps/healthmagazin", method: .get)
            #expect(get.status == .seeOther)
            #expect(get.headers[.location] == "/signin?next=1")
            #expect(try await client.postForm("/apps/healthmagazin", form: "comment=hi").status == .unauthorized)
            let tampered = try await client.execute(uri: "/apps/healthmagazin?launch=AAAA", method: .get)
            #expect(tampered.status == .unauthorized)
            #expect(tampered.headers[.location] == nil)
        }
        let exempt = UnauthenticatedPolicy.redirect(to: signIn, except: ["/apps/healthmagazin"])
        for policy in [exempt, .rejectionPage] {
            try await Self.application(unauthenticated: policy).test(.router) { client async throws in
                #expect(try await client.execute(uri: "/apps/healthmagazin", method: .get).status == .unauthorized)
            }
        }
    }

    @Test("the session cookie's name comes from one rule: __Host- and the app id over https, the plain name on http")
    func sessionCookieNames() throws {
        let https = try RegisteredURL("https://apps.example/magazin/")
        let http = try RegisteredURL("http://127.0.0.1:8080/magazin/")
        #expect(SessionCookieName.name(for: https, appID: "healthmagazin") == "__Host-webapp_launch_session_healthmagazin")
        #expect(SessionCookieName.name(for: http, appID: "healthmagazin") == "webapp_launch_session")
        #expect(SessionCookieName.hostPrefix == "__Host-" + SessionCookieName.plain + "_")
    }

    @Test("after the middleware looked for a launch in a form, the handler still reads the whole form")
    func handlerReadsItsForm() async throws {
        try await Self.application().test(.router) { client async throws in
            let cookie = try await client.sessionCookie(for: Fixtures.token(for: Fixtures.magazin), at: Fixtures.magazin)
            let response = try await client.postForm("/apps/healthmagazin", form: "comment=hello&rating=5", cookie: cookie)
            #expect(response.status == .ok)
            #expect(response.text == "handler read 22 bytes: comment=hello&rating=5")
        }
    }

    @Test("a form post to the app's own path larger than the launch reader reaches the handler whole (not 413)")
    func largeFormToTheAppPath() async throws {
        try await Self.application().test(.router) { client async throws in
            let cookie = try await client.sessionCookie(for: Fixtures.token(for: Fixtures.magazin), at: Fixtures.magazin)
            let large = "data=" + String(repeating: "x", count: 100 * 1024)
            let response = try await client.postForm("/apps/healthmagazin", form: large, cookie: cookie)
            #expect(response.status == .ok)
            #expect(response.text == "handler read \(large.utf8.count) bytes: " + large.prefix(40))
        }
    }

    @Test("a launch sent with PUT or a JSON POST is refused with 400 and not claimed: the same launch then opens a session by GET")
    func misplacedLaunchIsNotClaimed() async throws {
        try await Self.application().test(.router) { client async throws in
            let token = Fixtures.token(for: Fixtures.magazin)
            let put = try await client.execute(uri: "/apps/healthmagazin?launch=\(token)", method: .put)
            #expect(put.status == .badRequest)
            let json = try await client.execute(
                uri: "/apps/healthmagazin?launch=\(token)", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: "{}")
            )
            #expect(json.status == .badRequest)
            let get = try await client.execute(uri: "/apps/healthmagazin?launch=\(token)", method: .get)
            #expect(get.status == .seeOther)
        }
    }

    @Test("a form post to another path of the app is not read by the middleware, so it is not capped at 32 KiB")
    func otherPathsAreNotRead() async throws {
        try await Self.application().test(.router) { client async throws in
            let cookie = try await client.sessionCookie(for: Fixtures.token(for: Fixtures.magazin), at: Fixtures.magazin)
            let large = "data=" + String(repeating: "x", count: 100 * 1024)
            let response = try await client.postForm("/apps/healthmagazin/upload", form: large, cookie: cookie)
            #expect(response.status == .ok)
            #expect(response.text == "upload of \(large.utf8.count) bytes")
        }
    }

    @Test("a verifier with two audiences redirects each launch to the audience it matched and scopes the cookie there")
    func redirectsToMatchedAudience() async throws {
        let second = try RegisteredURL("http://127.0.0.1:8080/partner/magazin?tenant=b")
        let registry = try Registry(apps: [WebApp(id: Fixtures.magazin.id, title: "Magazin", url: second)])
        let signer = try LaunchSigner(keyring: Fixtures.keyring, registry: registry)
        let url = try signer.launchURL(for: Fixtures.magazin.id, user: Fixtures.user, now: Fixtures.now)
        try await Self.application(audiences: [Fixtures.magazin.url, second]).test(.router) { client async throws in
            let response = try await client.get(String(url.dropFirst("http://127.0.0.1:8080".count)))
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/partner/magazin?tenant=b")
            #expect(response.sessionCookie?.attributes["path"] == "/partner/magazin")
        }
    }

    @Test("errors from handlers keep their status and still carry the security headers")
    func errorsKeepHeaders() async throws {
        try await Self.application().test(.router) { client async throws in
            let response = try await client.get("/apps/healthmagazin/missing")
            #expect(response.status == .notFound || response.status == .unauthorized)
            #expect(response.headers[.cacheControl] == "no-store")
            #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
        }
    }

    @Test("HSTS is sent only when asked for, as for an https public URL", arguments: [true, false])
    func strictTransportSecurity(enabled: Bool) async throws {
        let router = Router()
        router.add(middleware: SecurityHeadersMiddleware(strictTransportSecurity: enabled))
        router.get("/") { _, _ in "ok" }
        try await Application(router: router).test(.router) { client async throws in
            let response = try await client.execute(uri: "/", method: .get)
            #expect((response.headers[HTTPField.Name("Strict-Transport-Security")!] == "max-age=31536000") == enabled)
            #expect(enabled || response.headers[HTTPField.Name("Strict-Transport-Security")!] == nil)
        }
    }
}

/// Review finding (info): cookie shadowing from a sibling subdomain.
@Suite("Over https the session cookie is a __Host- cookie: Secure, Path=/, no Domain, named for its app")
struct HostPrefixedCookieTests {
    @Test("a launch at an https audience sets __Host-webapp_launch_session_<app>, and that cookie opens the session")
    func httpsCookieIsHostPrefixed() async throws {
        let secure = try RegisteredURL("https://magazin.example/apps/healthmagazin")
        let registry = try Registry(apps: [WebApp(id: Fixtures.magazin.id, title: "Magazin", url: secure)])
        let signer = try LaunchSigner(keyring: Fixtures.productionKeyring, registry: registry)
        let url = try signer.launchURL(for: Fixtures.magazin.id, user: Fixtures.user, now: Fixtures.now)
        try await MiddlewareStandaloneTests.application(audiences: [secure], keyring: Fixtures.productionKeyring).test(.router) { client async throws in
            let response = try await client.get(String(url.dropFirst("https://magazin.example".count)))
            #expect(response.status == .seeOther)
            let cookie = try #require(response.setCookies.compactMap(SetCookie.init).first)
            #expect(cookie.name == "__Host-webapp_launch_session_healthmagazin")
            #expect(cookie.attributes["path"] == "/")
            #expect(cookie.attributes.keys.contains("secure"))
            #expect(!cookie.attributes.keys.contains("domain"))
            var headers = HTTPFields()
            headers[.cookie] = "\(cookie.name)=\(cookie.value)"
            let page = try await client.execute(uri: "/apps/healthmagazin", method: .get, headers: headers)
            #expect(page.status == .ok)
            // The plain-http name is not read for an https-only app.
            headers[.cookie] = "\(sessionCookieName)=\(cookie.value)"
            #expect(try await client.execute(uri: "/apps/healthmagazin", method: .get, headers: headers).status == .unauthorized)
        }
    }
}
