import Foundation
import Testing
import WebAppLaunch
import WebAppRegistry

/// Issue 29: the one development-key policy every entry point calls, and the loopback and
/// redirect rules it and the other guards share.
@Suite("One development-key policy, one loopback rule, one redirect rule")
struct DevelopmentKeyPolicyTests {
    static let development = try! Keyring(
        json: Data(#"{"development": true, "keys": [{"kid": "d", "status": "active", "secret": "O_Gsf6qizN0B1aCcOsfw3anrfaybIHTRaGC01Gj04gk"}]}"#.utf8)
    )
    static let production = try! Keyring(keys: [KeyringKey(kid: "p", status: .active, secret: try! KeySecret.generate())], isDevelopment: false)

    @Test("development keys pass on loopback hosts and URLs", arguments: ["127.0.0.1", "127.8.9.10", "localhost", "::1", "[::1]", "LOCALHOST"])
    func loopbackPasses(host: String) throws {
        try DevelopmentKeyPolicy.check(Self.development, bindHost: host, publicURLs: [try RegisteredURL("http://127.0.0.1:8080/app")])
    }

    @Test("development keys are refused, with one code, for a non-loopback bind host", arguments: [
        "0.0.0.0", "::", "10.0.0.1", "127.0.0.08", "127.1", "127.evil.example", "localhost.evil.example", "2130706433", "",
    ])
    func nonLoopbackHostRefused(host: String) {
        let error = #expect(throws: ConfigurationError.self) { try DevelopmentKeyPolicy.check(Self.development, bindHost: host, publicURLs: []) }
        #expect(error?.code == .developmentKeys)
    }

    @Test("development keys are refused for a non-loopback public URL or registry entry")
    func nonLoopbackURLRefused() throws {
        let urls = [try RegisteredURL("http://127.0.0.1/a"), try RegisteredURL("https://magazin.example/")]
        let error = #expect(throws: ConfigurationError.self) { try DevelopmentKeyPolicy.check(Self.development, bindHost: "127.0.0.1", publicURLs: urls) }
        #expect(error?.code == .developmentKeys)
        #expect(error?.reason.contains("magazin.example") == true)
    }

    @Test("production keys pass anywhere")
    func productionPasses() throws {
        try DevelopmentKeyPolicy.check(Self.production, bindHost: "0.0.0.0", publicURLs: [try RegisteredURL("https://magazin.example/")])
        try DevelopmentKeyPolicy.check(Self.production, boundAddress: "10.1.2.3")
    }

    @Test("a bound address is judged as the socket reports it", arguments: [
        ("127.0.0.1", true), ("::1", true), ("::ffff:127.0.0.1", true), ("0.0.0.0", false), ("::", false), ("::ffff:10.0.0.1", false), ("localhost", false),
    ])
    func boundAddress(address: String, passes: Bool) {
        if passes {
            #expect(throws: Never.self) { try DevelopmentKeyPolicy.check(Self.development, boundAddress: address) }
        } else {
            #expect(throws: ConfigurationError.self) { try DevelopmentKeyPolicy.check(Self.development, boundAddress: address) }
        }
        #expect(throws: ConfigurationError.self) { try DevelopmentKeyPolicy.check(Self.development, boundAddress: nil) }
    }

    @Test("an absolute URL's host is loopback only by its parsed host", arguments: [
        ("http://127.0.0.1:9400/realm", true), ("http://localhost/", true), ("http://[::1]:80/", true), ("https://127.2.3.4", true),
        ("http://127.evil.example/", false), ("http://127.0.0.1.nip.io/", false), ("http://127.0.0.1@evil.example/", false),
        ("http://evil.example#@127.0.0.1/", false), ("http://127.0.0.08/", false), ("127.0.0.1", false), ("http:127.0.0.1", false),
    ])
    func urlLoopback(url: String, loopback: Bool) {
        #expect(RegisteredURL.hasLoopbackHost(url) == loopback)
    }

    @Test("redirect targets: same-site paths only", arguments: [
        ("/", true), ("/signin?from=gate", true), ("/a/b%2Fc", true),
        ("//evil.example/", false), ("/\\evil.example/", false), ("/a\\b", false), ("https://evil.example/", false),
        ("javascript:alert(1)", false), ("signin", false), ("", false), ("/a b", false), ("/\tevil", false), ("/\u{7F}", false), ("/ä", false),
    ])
    func redirectTargets(target: String, safe: Bool) {
        #expect(RedirectTarget.isSafe(target) == safe)
        if safe {
            #expect((try? RedirectTarget(target))?.path == target)
        } else {
            let error = #expect(throws: ConfigurationError.self) { try RedirectTarget(target) }
            #expect(error?.code == .invalidRedirect)
        }
    }
}
