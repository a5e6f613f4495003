import Testing
import WebAppRegistry

@Suite("Registered URLs: one canonical form, strict refusals")
struct RegisteredURLTests {
    @Test("scheme and host are lower-cased, default ports dropped, an empty path becomes /, path and query kept byte for byte", arguments: [
        ("https://magazin.example/app", "https://magazin.example/app"),
        ("HTTPS://Magazin.EXAMPLE/app", "https://magazin.example/app"),
        ("https://magazin.example:443/app", "https://magazin.example/app"),
        ("http://localhost:80/x", "http://localhost/x"),
        ("HTTP://LOCALHOST:8080", "http://localhost:8080/"),
        ("https://magazin.example", "https://magazin.example/"),
        ("https://magazin.example?tenant=a", "https://magazin.example/?tenant=a"),
        ("https://magazin.example/app?", "https://magazin.example/app"),
        ("https://magazin.example:8443/App/Path?Q=Mixed&r=%2F", "https://magazin.example:8443/App/Path?Q=Mixed&r=%2F"),
        ("http://127.0.0.1:8080/apps/healthmagazin", "http://127.0.0.1:8080/apps/healthmagazin"),
        ("http://[::1]:9000/x", "http://[::1]:9000/x"),
        ("https://[2001:DB8::1]/x", "https://[2001:db8::1]/x"),
        ("https://a.example/p%20q", "https://a.example/p%20q"),
    ])
    func normalisation(_ input: String, _ canonical: String) throws {
        let url = try RegisteredURL(input)
        #expect(url.description == canonical)
        #expect(try RegisteredURL(canonical) == url)
        #expect(try RegisteredURL(url.description).description == canonical)
    }

    @Test("the origin is scheme, host and non-default port")
    func origin() throws {
        #expect(try RegisteredURL("HTTPS://A.example:443/x?y=1").origin == "https://a.example")
        #expect(try RegisteredURL("https://a.example:8443/x").origin == "https://a.example:8443")
    }

    @Test("unsafe or ambiguous URLs are refused", arguments: [
        "", "magazin.example/app", "https://user@magazin.example/", "https://user:pw@magazin.example/",
        "https://magazin.example/app#frag", "https://magazin.example/#", "javascript:alert(1)", "javascript://magazin.example/%0Aalert(1)",
        "ftp://magazin.example/", "file:///etc/passwd", "data:text/html,x", "http://magazin.example/app",
        "http://127.0.0.1.evil.example/", "http://localhost.evil.example/", "https://magazin.example/a/../b",
        "https://magazin.example/./b", "https://magazin.example/%2e%2e/b", "https://magazin.example/%2E/b",
        "https://magazin.example/a%2fb", "https://magazin.example/a%5cb", "https://magazin.example/a\\b", "https://magazin.example/a%zz",
        "https://magazin.example:0/", "https://magazin.example:65536/", "https://magazin.example:abc/", "https://magazin.example:/",
        "https://magazin.example:123456/", "https:///path", "https://-bad.example/", "https://bad_.example/", "https://ex ample.org/",
        "https://magazin.example/?launch=x", "https://magazin.example/?a=1&launch", "https://magazin.example/?a=1&launch=2",
        "https://magazin.example/?a=1&&b=2", "https://magazin.example/?=1", "https://magazin.example/?a?b", "https://[::1/",
        "https://[zz::1]/", "https://magazin.example/\u{00E4}", "https://magazin.example/" + String(repeating: "a", count: 2030),
    ])
    func refusals(_ input: String) {
        #expect(throws: RegistryError.self) { try RegisteredURL(input) }
        do {
            _ = try RegisteredURL(input)
        } catch {
            #expect(error.code == .invalidURL)
        }
    }

    @Test("loopback detection covers localhost, 127/8 and ::1 only", arguments: [
        ("localhost", true), ("127.0.0.1", true), ("127.255.255.254", true), ("[::1]", true),
        ("128.0.0.1", false), ("127.0.0.256", false), ("127.0.0", false), ("localhost.example", false), ("example.org", false),
    ])
    func loopback(_ host: String, _ expected: Bool) {
        #expect(RegisteredURL.isLoopback(host) == expected)
    }
}
