import Testing
import WebAppLaunch
import WebAppLaunchNative
import WebAppRegistry

/// Issue 18 point 1: one implementation of each security-relevant rule. The rules are tested
/// here, once, against that implementation; the parsers that use them are checked to agree.
@Suite("One URL syntax, one identifier rule: every parser of the package agrees")
struct SharedSyntaxTests {
    @Test("hosts: DNS names, canonical IPv4 and bracketed IPv6 pass; everything else is refused", arguments: [
        ("magazin.example", true), ("a-b.c0", true), ("localhost", true), ("127.0.0.1", true), ("10.0.0.255", true),
        ("[::1]", true), ("[2001:db8::1]", true),
        ("", false), ("-a.example", false), ("a-.example", false), ("a..example", false), ("a_b.example", false),
        ("Magazin.example", false), ("m\u{e4}gazin.example", false), ("127.0.0.08", false), ("127.0.0.1.", false),
        ("0127.0.0.1", false), ("256.0.0.1", false), ("2130706433", false), ("127.1", false), ("[]", false), ("[::g]", false),
        ("[::1", false), (String(repeating: "a", count: 64) + ".example", false),
        // Issue 32: a host whose last label is a number (digits, or 0x and hex digits) must be
        // a canonical IPv4 address; the labels before it are no exception (a non-digit one
        // once trapped the octet arithmetic).
        ("0x7f.0.0.1", false), ("1.2.3.0x4", false), ("example.123", false), ("example.0x", false), ("-.-.-.1", false),
        ("a.b.c.1", false), ("123.example", true), ("example.0xg", true), ("0x7f.example", true),
    ])
    func hosts(host: String, valid: Bool) {
        #expect(URLSyntax.isValidHost(host) == valid)
    }

    @Test("loopback means localhost, [::1] or a canonical 127.x.y.z", arguments: [
        ("localhost", true), ("127.0.0.1", true), ("127.255.255.254", true), ("[::1]", true), ("::1", true),
        ("127.0.0.08", false), ("127.1", false), ("128.0.0.1", false), ("localhost.example", false), ("127.0.0.1.nip.io", false),
    ])
    func loopback(host: String, isLoopback: Bool) {
        #expect(URLSyntax.isLoopback(host) == isLoopback)
        #expect(RegisteredURL.isLoopback(host) == isLoopback)
    }

    @Test("authorities: ports 1 to 65535, the default dropped, IPv6 ports after the bracket", arguments: [
        ("magazin.example", "https", "magazin.example", nil), ("MAGAZIN.example:443", "https", "magazin.example", nil),
        ("a.example:8443", "https", "a.example", 8443), ("localhost:80", "http", "localhost", nil), ("[::1]:9000", "http", "[::1]", 9000),
        ("a.example:0443", "https", "a.example", nil), ("a.example:08443", "https", "a.example", 8443),
    ] as [(String, String, String, Int?)])
    func authorities(authority: String, scheme: String, host: String, port: Int?) throws {
        let parsed = try URLSyntax.parseAuthority(authority[...], scheme: scheme)
        #expect(parsed.host == host)
        #expect(parsed.port == port)
    }

    @Test("bad ports and broken IPv6 authorities are refused", arguments: ["a.example:0", "a.example:65536", "a.example:", "a.example:+80", "a.example:8o", "[::1", "[::1]x", "[::1]:"])
    func badAuthorities(authority: String) {
        #expect(throws: URLSyntax.Failure.self) { try URLSyntax.parseAuthority(authority[...], scheme: "https") }
    }

    /// The parsers that read web hosts (the registry and the native origin check) must agree
    /// on every host: a host one refuses, the other refuses.
    @Test("RegisteredURL and the navigation policy's origin parser agree on hosts", arguments: [
        "magazin.example", "127.0.0.08", "0x7f.0.0.1", "2130706433", "a_b.example", "xn--mgazin-bua.example", "m\u{e4}gazin.example",
        "example.123", "1.2.3.0x4", "123.example",
    ])
    func parsersAgree(host: String) throws {
        let valid = URLSyntax.isValidHost(host)
        #expect(((try? RegisteredURL("https://\(host)/app")) != nil) == valid)
        let app = try WebApp(id: "a", title: "A", url: RegisteredURL("https://own.example/app"))
        let malformed: Bool = switch NavigationPolicy(app: app).decision(for: "https://\(host)/x") {
        case .cancel(let refusal): refusal.code == .malformedURL
        default: false
        }
        #expect(malformed == !valid)
    }

    @Test("identifiers (app ids and kids): 1 to 64 bytes of [A-Za-z0-9._-]", arguments: [
        ("healthmagazin", true), ("dev-2026.11_a", true), (String(repeating: "k", count: 64), true),
        ("", false), (String(repeating: "k", count: 65), false), ("a/b", false), ("m\u{e4}gazin", false), ("a b", false), ("a\u{301}", false),
    ])
    func identifiers(text: String, valid: Bool) {
        #expect(IdentifierSyntax.isValid(text) == valid)
        #expect(WebApp.isValidID(text) == valid)
        #expect(KeyringKey.isValidKeyID(text) == valid)
    }

    @Test("a registered path cannot carry `;` or `,`, which would inject cookie attributes", arguments: [
        "https://a.example/app;Domain=evil.example", "https://a.example/app,x", "https://a.example/a;b/c",
    ])
    func registeredPathRefusesCookieSeparators(url: String) {
        #expect(throws: RegistryError.self) { try RegisteredURL(url) }
    }

    @Test("the launch splitter splits on the byte & and recognises bare and valued launch pieces only")
    func launchSplitter() {
        #expect(LaunchParameters.carriesLaunch("a=1&launch=x"))
        #expect(LaunchParameters.carriesLaunch("launch"))
        #expect(!LaunchParameters.carriesLaunch("launcher=1&xlaunch=2"))
        #expect(!LaunchParameters.carriesLaunch("a=1&\u{301}launch=x"), "a mark after & belongs to the next piece")
        #expect(!LaunchParameters.carriesLaunch(nil))
        let split = LaunchParameters.splittingLaunch(fromURL: "https://a.example/app?t=1&launch=x&launch&u=2")
        #expect(split?.base == "https://a.example/app")
        #expect(split?.others == ["t=1", "u=2"])
        // A mark after `?` belongs to the first piece; it must not be stepped over.
        let marked = LaunchParameters.splittingLaunch(fromURL: "https://a.example/app?\u{301}t=1&launch=x")
        #expect(marked?.base == "https://a.example/app")
        #expect(marked?.others.map { Array($0.utf8) } == [Array("\u{301}t=1".utf8)])
        // Pieces are exact byte slices, empty ones included, whatever the text's storage.
        #expect(LaunchParameters.pieces(of: "") == [""])
        #expect(LaunchParameters.pieces(of: "&a&&b&") == ["", "a", "", "b", ""])
        #expect(LaunchParameters.pieces(of: "x=é&\u{301}y&z").map { Array($0.utf8) } == [Array("x=é".utf8), Array("\u{301}y".utf8), Array("z".utf8)])
        let bridged = "q=1&launch=t" as Substring
        #expect(LaunchParameters.pieces(of: bridged.dropFirst(2)) == ["1", "launch=t"])
    }

    @Test("the splitter finds every `&` at any offset of a long query, in a substring that starts and ends inside its string, as a byte-by-byte split does")
    func longQueriesSplit() {
        // Over several vector widths, with `&` before, across and after 16/32/64-byte blocks.
        for gap in [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 200] {
            var text = "é" + String(repeating: "a", count: gap)
            for piece in 0..<6 { text += "&" + String(repeating: "b", count: (gap * piece) % 97) + "\u{301}" }
            text += "&launch=" + String(repeating: "t", count: 1200)
            let full = text + "&tail"
            let inner = full.dropFirst(1).dropLast(2)
            var expected: [[UInt8]] = [[]]
            for byte in inner.utf8 {
                if byte == UInt8(ascii: "&") { expected.append([]) } else { expected[expected.count - 1].append(byte) }
            }
            #expect(LaunchParameters.pieces(of: inner).map { Array($0.utf8) } == expected, "gap \(gap)")
            #expect(LaunchParameters.carriesLaunch(inner))
        }
    }
}
