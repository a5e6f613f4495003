import Foundation
import Testing
import WebAppLaunchNative
import WebAppRegistry

@Suite("NavigationPolicy: only the launched app's origin loads in the web view")
struct NavigationPolicyTests {
    /// A decision reduced to what a row asserts: the outcome and the exact URL or code.
    enum Outcome: Equatable, Sendable, CustomTestStringConvertible {
        case allow
        case route(String)
        case open(String)
        case cancel(NavigationRefusal.Code)

        init(_ decision: NavigationDecision) {
            switch decision {
            case .allow: self = .allow
            case .routeInApp(let link): self = .route(link.description)
            case .openExternally(let url): self = .open(url.absoluteString)
            case .cancel(let refusal): self = .cancel(refusal.code)
            }
        }

        var testDescription: String {
            switch self {
            case .allow: "allow"
            case .route(let link): "route \(link)"
            case .open(let url): "open \(url)"
            case .cancel(let code): "cancel \(code)"
            }
        }
    }

    static let policy = NavigationPolicy(app: Fixtures.magazin)
    static let product = "navidapro://healthmagazin/details?article_id=606"

    /// Main-frame rows; also reused by the "never loosens" test below.
    static let mainFrameRows: [(String, Outcome)] = [
        ("https://magazin.example/app", .allow),
        ("https://magazin.example/app/article/7?x=1#top", .allow),
        ("https://MAGAZIN.EXAMPLE:443/other", .allow),
        ("https://magazin.example:8443/app", .open("https://magazin.example:8443/app")),
        ("https://www.example.org/info", .open("https://www.example.org/info")),
        ("https://magazin.example.evil.example/app", .open("https://magazin.example.evil.example/app")),
        ("https://magazin.examp1e/app", .open("https://magazin.examp1e/app")),
        ("https://xn--mgazin-9ua.example/app", .open("https://xn--mgazin-9ua.example/app")),
        (product, .route(product)),
        ("navidapro://healthmagazin/details?article_id=606&kvnr=A123456789", .cancel(.deepLinkRefused)),
        ("navidapro://payments/transfer?amount=1", .cancel(.deepLinkRefused)),
        ("navidapro://plugin/webapp?registeredURL=https://evil.example/", .cancel(.deepLinkRefused)),
        ("navidapro://healthmagazin/details/%2e%2e/settings", .cancel(.deepLinkRefused)),
        ("http://magazin.example/app", .cancel(.insecureHTTP)),
        ("http://www.example.org/", .cancel(.insecureHTTP)),
        ("https://magazin.example@evil.example/app", .cancel(.malformedURL)),
        ("https://evil.example\\@magazin.example/app", .cancel(.malformedURL)),
        ("https://evil.example\\magazin.example/app", .cancel(.malformedURL)),
        ("https://mag\u{430}zin.example/app", .cancel(.malformedURL)),
        ("https://magazin.example./app", .cancel(.malformedURL)),
        ("https://magazin.example:0/app", .cancel(.malformedURL)),
        ("https://magazin.example:99999/app", .cancel(.malformedURL)),
        ("https:magazin.example/app", .cancel(.malformedURL)),
        ("https://%6dagazin.example/app", .cancel(.malformedURL)),
        ("//evil.example/app", .cancel(.malformedURL)),
        ("", .cancel(.malformedURL)),
        ("https://magazin.example/app?q=" + Fixtures.repeated("a", 3000), .cancel(.malformedURL)),
        ("javascript:alert(document.cookie)", .cancel(.forbiddenScheme)),
        ("JaVaScRiPt:alert(1)", .cancel(.forbiddenScheme)),
        (" javascript:alert(1)", .cancel(.malformedURL)),
        ("\tjavascript:alert(1)", .cancel(.malformedURL)),
        ("\u{1}javascript:alert(1)", .cancel(.malformedURL)),
        ("java\nscript:alert(1)", .cancel(.malformedURL)),
        ("data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", .cancel(.forbiddenScheme)),
        ("file:///etc/passwd", .cancel(.forbiddenScheme)),
        ("blob:https://magazin.example/6f1c2a", .cancel(.forbiddenScheme)),
        ("about:blank", .cancel(.forbiddenScheme)),
        ("vbscript:msgbox(1)", .cancel(.forbiddenScheme)),
        ("tel:+49301234567", .cancel(.forbiddenScheme)),
    ]

    @Test("a main-frame navigation gets exactly the documented decision", arguments: mainFrameRows)
    func mainFrame(url: String, expected: Outcome) {
        #expect(Outcome(Self.policy.decision(for: url)) == expected)
    }

    @Test("subframes and redirects keep the app's origin and never leave the web view", arguments: [
        ("https://magazin.example/app/frame", true, false, Outcome.allow),
        ("https://magazin.example/app/next", false, true, .allow),
        ("https://www.youtube.com/embed/x", true, false, .cancel(.indirectNavigation)),
        ("https://evil.example/", false, true, .cancel(.indirectNavigation)),
        ("https://evil.example/", true, true, .cancel(.indirectNavigation)),
        (product, true, false, .cancel(.indirectNavigation)),
        (product, false, true, .cancel(.indirectNavigation)),
        ("about:blank", true, false, .cancel(.forbiddenScheme)),
        ("about:srcdoc", true, false, .cancel(.forbiddenScheme)),
        ("javascript:alert(1)", false, true, .cancel(.forbiddenScheme)),
        ("navidapro://payments/transfer", true, false, .cancel(.deepLinkRefused)),
    ])
    func indirect(url: String, isSubframe: Bool, isRedirect: Bool, expected: Outcome) {
        #expect(Outcome(Self.policy.decision(for: url, isMainFrame: !isSubframe, isRedirect: isRedirect)) == expected)
    }

    @Test("for every main-frame row, a subframe or redirect decision is the same or a cancel", arguments: mainFrameRows.map(\.0))
    func neverLoosens(url: String) {
        let main = Self.policy.decision(for: url)
        for (isMainFrame, isRedirect) in [(false, false), (true, true), (false, true)] {
            let indirect = Self.policy.decision(for: url, isMainFrame: isMainFrame, isRedirect: isRedirect)
            switch main {
            case .allow, .cancel:
                #expect(indirect == main)
            case .routeInApp, .openExternally:
                #expect(indirect.refusal?.code == .indirectNavigation)
            }
            #expect(indirect.allowsWebViewLoad == false || main.allowsWebViewLoad)
        }
    }

    @Test("plain http loads only on the app's own loopback origin, and only in development", arguments: [
        ("http://127.0.0.1:8080/dev", true, Outcome.allow),
        ("http://127.0.0.1:8080/dev/page?x=1", true, .allow),
        ("http://127.0.0.1:8080/dev", false, .cancel(.insecureHTTP)),
        ("http://127.0.0.1:9090/dev", true, .cancel(.insecureHTTP)),
        ("http://localhost:8080/dev", true, .cancel(.insecureHTTP)),
        ("http://2130706433:8080/dev", true, .cancel(.malformedURL)),  // a non-canonical numeric host is refused outright
        ("https://127.0.0.1:8080/dev", true, .open("https://127.0.0.1:8080/dev")),
        ("http://[::1]:8080/dev", true, .cancel(.insecureHTTP)),
    ])
    func loopback(url: String, development: Bool, expected: Outcome) {
        let policy = NavigationPolicy(app: Fixtures.devApp, allowsLoopbackHTTP: development)
        #expect(Outcome(policy.decision(for: url)) == expected)
    }

    @Test("script messages are accepted only from frames on the app's own origin", arguments: [
        ("https", "magazin.example", 0, false, true),
        ("https", "MAGAZIN.example", 443, false, true),
        ("https", "magazin.example", 8443, false, false),
        ("http", "magazin.example", 0, true, false),
        ("https", "evil.example", 0, false, false),
        ("https", "magazin.example.evil.example", 0, false, false),
        ("", "", 0, false, false),
        ("file", "", 0, false, false),
    ])
    func appOrigin(scheme: String, host: String, port: Int, development: Bool, accepted: Bool) {
        let policy = NavigationPolicy(app: Fixtures.magazin, allowsLoopbackHTTP: development)
        #expect(policy.isAppOrigin(scheme: scheme, host: host, port: port) == accepted)
    }

    @Test("the loopback development app's frames count only when development is allowed", arguments: [
        ("http", "127.0.0.1", 8080, true, true),
        ("http", "127.0.0.1", 8080, false, false),
        ("http", "127.0.0.1", 0, true, false),
        ("http", "localhost", 8080, true, false),
    ])
    func devOrigin(scheme: String, host: String, port: Int, development: Bool, accepted: Bool) {
        let policy = NavigationPolicy(app: Fixtures.devApp, allowsLoopbackHTTP: development)
        #expect(policy.isAppOrigin(scheme: scheme, host: host, port: port) == accepted)
    }

    @Test("a deep link refused by the allowlist carries the allowlist's code")
    func deepLinkErrorIsCarried() {
        let decision = Self.policy.decision(for: "navidapro://healthmagazin/details?token=x")
        #expect(decision.refusal?.code == .deepLinkRefused)
        #expect(decision.refusal?.deepLinkError?.code == .queryKeyNotAllowed)
        let noAllowlist = NavigationPolicy(app: Fixtures.coach).decision(for: Self.product)
        #expect(noAllowlist.refusal?.deepLinkError?.code == .noAllowlist)
    }

    @Test("URLs from WebKit are decided like their text, and a missing URL is cancelled")
    func foundationURLs() throws {
        let url = try #require(URL(string: "https://magazin.example/app/x"))
        #expect(Self.policy.decision(for: url) == .allow)
        #expect(Self.policy.decision(for: nil as URL?).refusal?.code == .malformedURL)
        let link = try #require(URL(string: Self.product))
        #expect(Outcome(Self.policy.decision(for: link)) == .route(Self.product))
        #expect(Self.policy.decision(for: link).allowsWebViewLoad == false)
    }
}
