import HTTPTypes
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Testing
@testable import WebAppLaunchMiddleware

/// The listener's request conversion gives exactly what swift-nio-extras' conversion gives.
@Suite("HTTP/1 listener: request targets converted as swift-nio-extras converts them")
struct OriginFormRequestCodecTests {
    static let targets = [
        "/", "/apps/healthmagazin", "/apps/healthmagazin?launch=v1.abc&x=%20y", "//evil.example/x", "/a//b/../c",
        "/%zz?%", "/with space", "/p?q=http://x/y", "/\u{E9}t\u{E9}", "*", "http://other.example:8080/p?q=1",
        "https://host/", "http://host", "relative/path", "",
    ]

    @Test("every target, method and header set gives the same HTTPRequest as nio-extras' conversion", arguments: targets)
    func sameAsNIOExtras(target: String) throws {
        for (method, secure) in [(HTTPMethod.GET, false), (.POST, true), (.RAW(value: "PURGE"), false)] {
            var headers = HTTPHeaders([("Host", "127.0.0.1:8080"), ("Cookie", "a=1; b=2"), ("X-Two", "1"), ("x-two", "2")])
            if target == "/" { headers.remove(name: "Host") }
            let head = HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: headers)
            let expected = try HTTPRequest(head, secure: secure, splitCookie: false)
            #expect(try OriginFormRequestCodec.request(from: head, secure: secure) == expected)
        }
    }

    @Test("an origin-form target is the request's path byte for byte, its query included")
    func originFormKept() throws {
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/apps/x?launch=a.b.c&z=%2F", headers: ["Host": "h"])
        let request = try OriginFormRequestCodec.request(from: head, secure: false)
        #expect(request.path == "/apps/x?launch=a.b.c&z=%2F")
        #expect(request.authority == "h")
        #expect(request.scheme == "http")
        #expect(!request.headerFields.contains { $0.name.canonicalName == "host" }, "Host becomes the authority, as nio-extras does")
    }
}
