import HTTPTypes
import Testing
@testable import WebAppLaunchGate
import WebAppLaunchMiddleware

/// `/auth` reads its request's fields in one pass and gets what a lookup by name gave.
@Suite("Gate: /auth's one pass over the request's fields")
struct AuthRequestFieldsTests {
    static let uri = NginxConfiguration.originalURI
    static let method = NginxConfiguration.originalMethod

    static let fieldSets: [[HTTPField]] = [
        [],
        [HTTPField(name: uri, value: "/page?x=1"), HTTPField(name: method, value: "GET")],
        [HTTPField(name: uri, value: "/a"), HTTPField(name: .contentType, value: "text/plain"), HTTPField(name: uri, value: "/b"), HTTPField(name: method, value: "POST")],
        [HTTPField(name: .contentType, value: "application/x-www-form-urlencoded"), HTTPField(name: .contentType, value: "text/html"), HTTPField(name: method, value: "G"), HTTPField(name: method, value: "ET")],
        [HTTPField(name: HTTPField.Name("x-original-uri")!, value: "/lower"), HTTPField(name: HTTPField.Name("X-ORIGINAL-METHOD")!, value: "HEAD")],
    ]

    @Test("the original target, method and content type are what HTTPFields' lookup by name gives, duplicates joined alike", arguments: fieldSets)
    func sameAsLookup(fields: [HTTPField]) {
        let headers = HTTPFields(fields)
        let read = AuthRequestFields(headers)
        #expect(!read.hasIdentityField)
        #expect(read.originalURI == headers[Self.uri])
        #expect(read.originalMethod == headers[Self.method])
        #expect(read.contentType == headers[.contentType])
    }

    @Test("the app's cookies: every Cookie field without any session cookie of ours, joined with '; '; none left, none; ours counted")
    func appCookies() {
        let session = "webapp_launch_session=abc.def"
        let headers: HTTPFields = [
            .cookie: "theme=dark; \(session); __Host-webapp_launch_session_other=x",
            .cookie: "WEBAPP_LAUNCH_SESSION=y",
            .cookie: "lang=de",
        ]
        #expect(AuthRequestFields(headers).appCookies == "theme=dark; lang=de")
        #expect(AuthRequestFields(headers).sessionCookies == 3)
        #expect(AuthRequestFields([.cookie: session]).appCookies == nil)
        #expect(AuthRequestFields([.cookie: session]).sessionCookies == 1)
        #expect(AuthRequestFields([.cookie: "a=1"]).appCookies == "a=1")
        #expect(AuthRequestFields([.cookie: "a=1"]).sessionCookies == 0)
    }

    @Test("an identity field in any spelling is found wherever it is among the fields", arguments: ["X-WebApp-Launch-KVNR", "x_webapp_launch_subject", "X-WEBAPP-LAUNCH-APP-COOKIES"])
    func identityField(name: String) throws {
        let spoofed = HTTPField(name: try #require(HTTPField.Name(name)), value: "B551029382")
        for position in 0...2 {
            var fields = [HTTPField(name: Self.uri, value: "/"), HTTPField(name: Self.method, value: "GET")]
            fields.insert(spoofed, at: position)
            #expect(AuthRequestFields(HTTPFields(fields)).hasIdentityField, "at \(position)")
        }
    }
}
