import Foundation
import HTTPTypes
import Testing
@testable import WebAppLaunchGate
import WebAppRegistry

@Suite("Gate: identity header encoding, hop-by-hop and cookie filtering")
struct IdentityHeadersTests {
    @Test(
        "values are UTF-8 percent-encoded to pure ASCII, unreserved characters kept",
        arguments: [
            ("Erika", "Erika"),
            ("Jürgen", "J%C3%BCrgen"),
            ("O'Brien", "O%27Brien"),
            ("Groß-Zoë", "Gro%C3%9F-Zo%C3%AB"),
            ("a b+c%d", "a%20b%2Bc%25d"),
            ("A.b_c~d", "A.b_c~d"),
            ("x\r\nSet-Cookie: y", "x%0D%0ASet-Cookie%3A%20y"),
        ]
    )
    func percentEncoding(value: String, encoded: String) {
        #expect(IdentityHeaders.percentEncoded(value) == encoded)
        #expect(encoded.removingPercentEncoding == value)
    }

    @Test("every spelling of an identity header is recognised", arguments: [
        "X-WebApp-Launch-Subject", "x-webapp-launch-subject", "X-WEBAPP-LAUNCH-KVNR", "X-WebApp-Launch-Anything",
    ])
    func identityNames(name: String) throws {
        #expect(IdentityHeaders.isIdentityField(try #require(HTTPField.Name(name))))
    }

    @Test("Connection and the fields it names go, with the fixed hop-by-hop set; end-to-end fields stay")
    func hopByHop() throws {
        var fields = HTTPFields()
        for (name, value) in [
            ("Connection", "close, X-Private"), ("X-Private", "1"), ("Keep-Alive", "t"), ("TE", "trailers"),
            ("Trailer", "X"), ("Transfer-Encoding", "chunked"), ("Upgrade", "h2c"), ("Proxy-Authenticate", "Basic"),
            ("Proxy-Authorization", "Basic x"), ("Proxy-Connection", "keep-alive"), ("Accept", "text/html"),
        ] {
            fields.append(HTTPField(name: try #require(HTTPField.Name(name)), value: value))
        }
        let kept = HopByHopHeaders.removing(from: fields)
        #expect(kept.map(\.name.canonicalName) == ["accept"])
    }

    @Test("the session cookie is removed from Cookie values, other cookies kept", arguments: [
        ("webapp_launch_session=abc", nil),
        ("a=1; webapp_launch_session=abc; b=2", "a=1; b=2"),
        ("webapp_launch_session=x; webapp_launch_session=y; c=3", "c=3"),
        ("xwebapp_launch_session=1", "xwebapp_launch_session=1"),
        ("a=1", "a=1"),
    ] as [(String, String?)])
    func cookieFiltering(value: String, expected: String?) {
        #expect(UpstreamRequestHeaders.removingCookie(named: "webapp_launch_session", from: value) == expected)
    }

    @Test("an upstream must be an http(s) origin without path, query or credentials", arguments: [
        "ftp://127.0.0.1:9000", "http://127.0.0.1:9000/app", "http://u:p@127.0.0.1:9000", "http://127.0.0.1:9000?x=1", "127.0.0.1:9000", "",
    ])
    func badUpstreams(text: String) {
        #expect(throws: ConfigurationError.self) { try GateUpstream(text) }
    }
}
