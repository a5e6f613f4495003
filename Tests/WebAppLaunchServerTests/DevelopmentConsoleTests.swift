import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppRegistry

@Suite("The launcher console exists only for development keys on loopback, and mints like the app")
struct DevelopmentConsoleTests {
    static let users = [
        DemoUser(id: "juergen", firstName: "Jürgen", lastName: "Groß", kvnumber: "M204198708", accessToken: "console-token-j"),
        DemoUser(id: "zoe", firstName: "Zoë", lastName: "O'Brien-Müller", kvnumber: "B551029382", accessToken: "console-token-z"),
    ]

    static func consoleConfiguration(keyring: Keyring = Fixtures.keyring, host: String = "127.0.0.1") -> WebAppServerConfiguration {
        var configuration = WebAppServerConfiguration(keyring: keyring, registry: Fixtures.registry, apps: [ServedApp(Fixtures.magazin), ServedApp(Fixtures.bonus)])
        configuration.demoUsers = users
        configuration.host = host
        return configuration
    }

    static let productionKeyring = try! Keyring(
        keys: [KeyringKey(kid: "prod", status: .active, secret: Fixtures.secret(0x44))],
        isDevelopment: false
    )

    @Test("GET / lists every registered app as a card and every demo user, HTML-escaped, with the page's headers")
    func consoleListsAppsAndUsers() async throws {
        let server = try TestServer(configuration: Self.consoleConfiguration())
        try await server.test { client in
            let response = try await client.get("/")
            #expect(response.status == .ok)
            let body = String(buffer: response.body)
            #expect(body.contains(#"id="card-healthmagazin""#))
            #expect(body.contains(#"id="card-bonus""#))
            #expect(body.contains("http://127.0.0.1:8080/apps/bonus?tenant=demo"))
            #expect(body.contains("Jürgen Groß"))
            #expect(body.contains("O&#39;Brien-Müller"))
            #expect(!body.contains("O'Brien-Müller"))
            #expect(!body.contains("console-token"), "access tokens never reach the browser")
            #expect(!body.contains("M204198708"), "the KVNR is shown masked")
            #expect(response.headers[.cacheControl] == "no-store")
            #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            #expect(body.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil)
        }
    }

    @Test("Open mints on the server and redirects to a launch that the app's own path accepts", arguments: [Fixtures.magazin, Fixtures.bonus])
    func openMintsAVerifiableLaunch(app: WebApp) async throws {
        let server = try TestServer(configuration: Self.consoleConfiguration())
        try await server.test { client in
            let response = try await client.postConsoleForm("/console/launch", form: "user=juergen&app=\(app.id)")
            #expect(response.status == .seeOther)
            let location = try #require(response.headers[.location])
            #expect(location.hasPrefix(app.url.description + (app.url.query == nil ? "?" : "&") + "launch="))
            let target = String(location.dropFirst(app.url.origin.count))
            let launched = try await client.get(target)
            #expect(launched.status == .seeOther)
            let cookie = try #require(launched.sessionCookie?.value)
            let page = try await client.get(Fixtures.cleanTarget(of: app), cookie: cookie)
            #expect(page.status == .ok)
            #expect(String(buffer: page.body).contains("Jürgen"))
        }
    }

    @Test("a launch minted for one app is rejected at the other app's path")
    func launchesStayWithTheirApp() async throws {
        let server = try TestServer(configuration: Self.consoleConfiguration())
        try await server.test { client in
            let response = try await client.postConsoleForm("/console/launch", form: "user=zoe&app=healthmagazin")
            let location = try #require(response.headers[.location])
            let token = String(location[location.range(of: "launch=")!.upperBound...])
            let elsewhere = try await client.get("/apps/bonus?tenant=demo&launch=\(token)", json: true)
            #expect(elsewhere.status == .unauthorized)
        }
    }

    @Test("an unknown user or app is a 400 with the console, never a launch", arguments: [
        "user=nobody&app=healthmagazin", "user=juergen&app=unregistered", "user=juergen", "",
    ])
    func invalidFormsAreRefused(form: String) async throws {
        let server = try TestServer(configuration: Self.consoleConfiguration())
        try await server.test { client in
            let response = try await client.postConsoleForm("/console/launch", form: form)
            #expect(response.status == .badRequest)
            #expect(response.headers[.location] == nil)
        }
    }

    @Test("a registered plugin link opens that app's launch")
    func pluginLinkResolves() async throws {
        let server = try TestServer(configuration: Self.consoleConfiguration())
        try await server.test { client in
            let link = PluginLinkText.forURL("http://127.0.0.1:8080/apps/healthmagazin")
            let response = try await client.postConsoleForm("/console/plugin", form: "user=zoe&link=\(link)")
            #expect(response.status == .seeOther)
            #expect(response.headers[.location]?.hasPrefix("http://127.0.0.1:8080/apps/healthmagazin?launch=") == true)
        }
    }

    @Test("a foreign, lookalike or malformed plugin link is refused with its reason and mints nothing", arguments: [
        ("https://evil.example/apps/healthmagazin", "not_registered"),
        ("http://127.0.0.1:8080@evil.example/apps/healthmagazin", "invalid_registered_url"),
        ("http://127.0.0.1:8080/apps/healthmagazin/../../evil", "invalid_registered_url"),
        ("http://127.0.0.1:8080/apps/healthmagazinx", "not_registered"),
        ("javascript:alert(1)", "invalid_registered_url"),
    ])
    func pluginLinkRefused(target: String, code: String) async throws {
        let server = try TestServer(configuration: Self.consoleConfiguration())
        try await server.test { client in
            let response = try await client.postConsoleForm("/console/plugin", form: "user=zoe&link=\(PluginLinkText.forURL(target))")
            #expect(response.status == .unprocessableContent)
            #expect(response.headers[.location] == nil)
            let body = String(buffer: response.body)
            #expect(body.contains(#"<code id="refusal-code">\#(code)</code>"#))
            #expect(body.contains(#"id="user-zoe" checked"#), "the chosen user stays chosen")
            #expect(!body.contains(#"id="user-juergen" checked"#))
        }
    }

    @Test("a plugin link that is not a plugin link is refused", arguments: [
        "https://example.org", "navidapro://healthmagazin/details?article_id=606", "garbage",
    ])
    func notAPluginLink(link: String) async throws {
        let server = try TestServer(configuration: Self.consoleConfiguration())
        try await server.test { client in
            let encoded = link.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let response = try await client.postConsoleForm("/console/plugin", form: "user=zoe&link=\(encoded)")
            #expect(response.status == .unprocessableContent)
            #expect(response.headers[.location] == nil)
        }
    }

    @Test("the navigation endpoint reports NavigationPolicy's decision for the page's fallback", arguments: [
        ("navidapro://healthmagazin/details?article_id=606", "routeInApp"),
        ("navidapro://healthmagazin/admin", "cancel"),
        ("https://www.example.org/", "openExternally"),
        ("javascript:alert(1)", "cancel"),
    ])
    func navigationDecisions(url: String, decision: String) async throws {
        let server = try TestServer(configuration: Self.consoleConfiguration())
        try await server.test { client in
            let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let response = try await client.get("/console/navigation?app=healthmagazin&url=\(encoded)")
            #expect(response.status == .ok)
            #expect(String(buffer: response.body).contains(#""decision":"\#(decision)""#))
        }
    }

    @Test("with a production keyring on loopback the console and its minting routes do not exist", arguments: [
        ("GET", "/"), ("POST", "/console/launch"), ("POST", "/console/plugin"), ("GET", "/console/navigation?app=healthmagazin&url=x"),
    ])
    func productionKeyringHasNoConsole(method: String, path: String) async throws {
        let server = try TestServer(configuration: Self.consoleConfiguration(keyring: Self.productionKeyring))
        try await server.test { client in
            let response = method == "GET"
                ? try await client.get(path)
                : try await client.postForm(path, form: "user=juergen&app=healthmagazin")
            #expect(response.status == .notFound)
            #expect(response.headers[.location] == nil)
        }
    }

    @Test("on a non-loopback address the console routes are not registered, even for development keys")
    func nonLoopbackHasNoConsole() async throws {
        let configuration = Self.consoleConfiguration(host: "0.0.0.0")
        #expect(!configuration.servesDevelopmentConsole)
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        // Even a server built without validation (an embedding app's mistake) has no console.
        let server = try WebAppServer(configuration: configuration, replayStore: InMemoryReplayStore(capacity: 64))
        try await server.makeApplication().test(.router) { client in
            let console = try await client.execute(uri: "/", method: .get)
            #expect(console.status == .notFound)
            let mint = try await client.execute(
                uri: "/console/launch", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "user=juergen&app=healthmagazin")
            )
            #expect(mint.status == .notFound)
        }
    }

    @Test("isPermitted holds only for development keys on loopback hosts", arguments: [
        (true, "127.0.0.1", true), (true, "localhost", true), (true, "::1", true),
        (true, "0.0.0.0", false), (true, "192.168.1.5", false), (true, "example.org", false),
        (false, "127.0.0.1", false),
    ])
    func permission(development: Bool, host: String, permitted: Bool) {
        let keyring = development ? Fixtures.keyring : Self.productionKeyring
        #expect(DevelopmentConsole.isPermitted(keyring: keyring, host: host) == permitted)
    }
}

/// Builds `navidapro://plugin/webapp?registeredURL=…` form values.
enum PluginLinkText {
    static func forURL(_ url: String) -> String {
        let inner = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let link = "navidapro://plugin/webapp?registeredURL=\(inner)"
        return link.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }
}
