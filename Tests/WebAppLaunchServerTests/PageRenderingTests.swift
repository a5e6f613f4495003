import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer

@Suite("The page renders user data as text, runs only its own hashed script, and has no inline handlers")
struct PageRenderingTests {
    static let scriptPayload = "</script><script>alert(1)</script>"
    static let attributePayload = #""><img src=x onerror=alert(1)>"#

    /// The page a launch for `user` at the magazine opens.
    static func page(for user: LaunchUser = Fixtures.user) async throws -> TestResponse {
        let token = Fixtures.token(for: Fixtures.magazin, user: user)
        return try await TestServer().test { client in
            let cookie = try await client.sessionCookie(for: token, at: Fixtures.magazin)
            let page = try await client.get("/apps/healthmagazin", cookie: cookie)
            try #require(page.status == .ok)
            return page
        }
    }

    static let hostileUser = LaunchUser(
        accessToken: Fixtures.user.accessToken,
        firstName: scriptPayload,
        lastName: attributePayload,
        kvnumber: Fixtures.user.kvnumber
    )

    @Test("script and attribute injection payloads in the names arrive escaped, as text")
    func namesAreEscaped() async throws {
        let html = try await Self.page(for: Self.hostileUser).text
        #expect(html.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"))
        #expect(html.contains(#"<span id="first-name">&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</span>"#))
        #expect(!html.contains(Self.scriptPayload))
        #expect(!html.contains(Self.attributePayload))
        #expect(!html.contains("<img"))
        #expect(!html.contains("<script>alert"))
        let elements = HTMLScan.elements(in: html)
        #expect(elements.filter { $0.name == "script" }.count == 1, "only the page's own script element")
        #expect(!elements.contains { $0.name == "img" })
        #expect(elements.flatMap(\.attributes).allSatisfy { !$0.hasPrefix("on") })
    }

    @Test("the payloads stay inside the data attribute they were rendered into")
    func attributePayloadStaysQuoted() async throws {
        let html = try await Self.page(for: Self.hostileUser).text
        let button = try #require(html.split(separator: "\n").first { $0.contains(#"id="display-name""#) })
        let elements = HTMLScan.elements(in: String(button))
        #expect(elements.first?.attributes == ["id", "type", "data-bridge-action", "data-bridge-data"])
    }

    @Test("the page has no inline event handler attributes")
    func noInlineEventHandlers() async throws {
        let html = try await Self.page().text
        #expect(html.firstMatch(of: /\son[a-z]+\s*=/) == nil)
        #expect(html.range(of: "javascript:", options: .caseInsensitive) == nil)
        let elements = HTMLScan.elements(in: html)
        #expect(elements.count > 20, "the scanner saw the page")
        #expect(elements.flatMap(\.attributes).allSatisfy { !$0.hasPrefix("on") })
    }

    @Test("the HTML scanner used here does see injected elements and handlers, and ignores escaped text")
    func scannerSelfCheck() {
        let injected = HTMLScan.elements(in: #"<p data-x="a > b">hi</p><img src=x onerror=alert(1)><div title='x' ONCLICK="y">"#)
        #expect(injected.map(\.name) == ["p", "img", "div"])
        #expect(injected[1].attributes == ["src", "onerror"])
        #expect(injected[2].attributes == ["title", "onclick"])
        #expect(HTMLScan.elements(in: "&lt;img src=x onerror=alert(1)&gt;").isEmpty)
        #expect(HTMLScan.elements(in: "<script>if (a<b) { x('<img onerror=1>') }</script><b>").map(\.name) == ["script", "b"])
    }

    @Test("the CSP's script and style hashes are the SHA-256 of the page's inline script and style")
    func cspHashesMatchInlineAssets() async throws {
        let page = try await Self.page()
        let csp = try #require(page.headers[.contentSecurityPolicy])
        let script = try #require(HTMLScan.rawText(of: "script", in: page.text))
        let style = try #require(HTMLScan.rawText(of: "style", in: page.text))
        #expect(script.contains("AppInterface"))
        let scriptHash = Data(try WebAppLaunch.SHA256.hash(Array(script.utf8))).base64EncodedString()
        let styleHash = Data(try WebAppLaunch.SHA256.hash(Array(style.utf8))).base64EncodedString()
        let directives = Dictionary(csp.split(separator: ";").map { part -> (String, String) in
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            let name = trimmed.prefix { $0 != " " }
            return (String(name), String(trimmed.dropFirst(name.count)).trimmingCharacters(in: .whitespaces))
        }, uniquingKeysWith: { first, _ in first })
        #expect(directives["script-src"] == "'sha256-\(scriptHash)'")
        // The page's style, and the rejection page's (which the same policy covers).
        let rejection = try await TestServer().test { client in try await client.get("/apps/healthmagazin") }
        let rejectionStyle = try #require(HTMLScan.rawText(of: "style", in: rejection.text))
        let rejectionHash = Data(try WebAppLaunch.SHA256.hash(Array(rejectionStyle.utf8))).base64EncodedString()
        #expect(directives["style-src"] == "'sha256-\(styleHash)' 'sha256-\(rejectionHash)'")
        #expect(directives["default-src"] == "'none'")
    }

    @Test("the page shows the masked KVNR and never the full KVNR or the access token")
    func personalDataIsMinimal() async throws {
        let html = try await Self.page().text
        #expect(html.contains("A********0"))
        #expect(!html.contains("A123456780"))
        #expect(!html.contains(Fixtures.user.accessToken))
    }

    @Test("the page wires the AppInterface bridge and links the app's allowlisted deep links")
    func bridgeAndDeepLinks() async throws {
        let html = try await Self.page().text
        #expect(html.contains(#"data-bridge-action="deeplink" data-bridge-data="navidapro://healthmagazin/details?article_id=606""#))
        #expect(html.contains(#"data-bridge-action="displayText""#))
        #expect(html.contains(#"href="navidapro://healthmagazin/details?article_id=606""#))
        #expect(html.contains("window.webkit.messageHandlers.AppInterface"))
        #expect(html.contains(#"id="bridge-fallback" hidden"#), "a plain browser gets a visible fallback")
    }
}
