import Foundation
import HTTPTypes
import Testing
@testable import WebAppLaunchGate
import WebAppLaunchMiddleware
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
            ("\u{7F}\u{00}/9", "%7F%00%2F9"),
            ("T012345678.eyJ-_~", "T012345678.eyJ-_~"),
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

    @Test("Connection and the fields it names are hop-by-hop, with the fixed set, read from the fields or from Connection's values alike; end-to-end fields are not")
    func hopByHop() throws {
        var fields = HTTPFields()
        for (name, value) in [
            ("Connection", "close, X-Private"), ("X-Private", "1"), ("Keep-Alive", "t"), ("TE", "trailers"),
            ("Trailer", "X"), ("Transfer-Encoding", "chunked"), ("Upgrade", "h2c"), ("Proxy-Authenticate", "Basic"),
            ("Proxy-Authorization", "Basic x"), ("Proxy-Connection", "keep-alive"), ("Accept", "text/html"),
        ] {
            fields.append(HTTPField(name: try #require(HTTPField.Name(name)), value: value))
        }
        // A request's fields (HTTP Types) and a response's (its Connection values): one rule.
        for filter in [HopByHopHeaders.Filter(fields), HopByHopHeaders.Filter(connectionValues: ["close, X-Private"])] {
            let kept = fields.filter { !filter.isHopByHop($0.name.canonicalName) }
            #expect(kept.map(\.name.canonicalName) == ["accept"])
        }
        #expect(!HopByHopHeaders.Filter(connectionValues: []).isHopByHop("x-private"), "only a named option is hop-by-hop")
    }

    @Test("Connection options are read in any case beside the fixed names they repeat, and a look-alike of a fixed name (`_` for `-`) is named on its own")
    func connectionOptions() {
        let filter = HopByHopHeaders.Filter(connectionValues: ["Keep-Alive", " KEEP-ALIVE ,X-Trace\t, keep_alive,, Upgrade"])
        for name in ["keep-alive", "upgrade", "x-trace", "keep_alive", "connection", "te"] {
            #expect(filter.isHopByHop(name), "\(name) is hop-by-hop")
        }
        for name in ["keep-alivex", "x-trac", "accept", "trace"] {
            #expect(!filter.isHopByHop(name), "\(name) is end-to-end")
        }
        let isFixed = { (token: String) in HopByHopHeaders.isFixedName(token[...].utf8) }
        #expect(isFixed("Proxy-Authorization") && isFixed("tE"))
        #expect(!isFixed("keep_alive") && !isFixed("keep-alive2") && !isFixed("t") && !isFixed(""))
        #expect(HopByHopHeaders.Filter(connectionValues: [" , ,", ""]).isHopByHop("keep-alive"), "blank options name nothing, the fixed set stays")
    }

    @Test("every session cookie of ours is removed from Cookie values, any app, any case; other cookies kept", arguments: [
        ("webapp_launch_session=abc", nil),
        ("a=1; webapp_launch_session=abc; b=2", "a=1; b=2"),
        ("webapp_launch_session=x; webapp_launch_session=y; c=3", "c=3"),
        ("__Host-webapp_launch_session_healthmagazin=x; d=4", "d=4"),
        ("e=5; __Host-webapp_launch_session_otherapp=x", "e=5"),
        ("__host-WEBAPP_LAUNCH_SESSION_x=1; WebApp_Launch_Session=2; f=6", "f=6"),
        ("xwebapp_launch_session=1", "xwebapp_launch_session=1"),
        ("webapp_launch_sessions=1; __Host-webapp_launch_sessionx=2", "webapp_launch_sessions=1; __Host-webapp_launch_sessionx=2"),
        ("a=1", "a=1"),
        ("a=1;b=2", "a=1;b=2"),
        (" \ta=1;;  webapp_launch_session =x; ;b=2 ", "a=1; b=2 "),
        (" ; ", nil),
    ] as [(String, String?)])
    func cookieFiltering(value: String, expected: String?) {
        #expect(SessionCookieFamily.removing(from: value) == expected)
    }

    @Test("a session cookie the verifier would read is never left for the upstream: both read Cookie fields as CookiePairs", arguments: [
        "webapp_launch_session=s", "a=1;webapp_launch_session=s", " \t webapp_launch_session=s; b", ";;webapp_launch_session=s=t;",
        "x=\u{E9}; __Host-webapp_launch_session_healthmagazin=s", "\u{1F600}=1;\twebapp_launch_session=s",
    ])
    func removalAgreesWithLookup(value: String) {
        let names = [SessionCookieName.plain, SessionCookieName.hostPrefix + "healthmagazin"]
        #expect(names.contains { CookiePairs.firstValue(named: $0, in: [value]) != nil }, "the lookup finds a session here")
        let left = SessionCookieFamily.removing(from: value)
        #expect(names.allSatisfy { name in CookiePairs.firstValue(named: name, in: [left].compactMap { $0 }) == nil })
    }

    @Test("identity header names are compared folded: any case, `_` read as `-`", arguments: [
        ("X_WebApp_Launch_Subject", true), ("X-WebApp-Launch_KVNR", true), ("x_webapp_launch_access_token", true),
        ("X-WEBAPP-LAUNCH-APP", true), ("X-WebApp-Launcher", false), ("X-WebAppLaunch-Subject", false),
    ])
    func foldedIdentityNames(name: String, isIdentity: Bool) throws {
        #expect(IdentityHeaders.isIdentityField(try #require(HTTPField.Name(name))) == isIdentity)
    }

    @Test("an upstream must be an http(s) origin without path, query or credentials", arguments: [
        "ftp://127.0.0.1:9000", "http://127.0.0.1:9000/app", "http://u:p@127.0.0.1:9000", "http://127.0.0.1:9000?x=1", "127.0.0.1:9000", "",
    ])
    func badUpstreams(text: String) {
        #expect(throws: ConfigurationError.self) { try GateUpstream(text) }
    }
}
