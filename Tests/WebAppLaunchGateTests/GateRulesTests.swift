import Foundation
import HTTPTypes
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
@testable import WebAppLaunchGate

/// The gate's rules as values, without sockets: the launch decision, the streaming launch
/// scanner, the per-session slots, the byte-exact target check.
@Suite("Gate: launch decision, body scanner, session slots, targets")
struct GateRulesTests {
    @Test("one decision: GET launches and form POSTs to the app's path are taken, a launch anywhere else is misplaced", arguments: [
        ("GET", "/", "launch=AAAA", nil, LaunchRequestKind.queryLaunch),
        ("GET", "/other", "a=1&launch", nil, .queryLaunch),
        ("HEAD", "/", "launch=AAAA", nil, .misplacedLaunch),
        ("OPTIONS", "/", "launch=AAAA", nil, .misplacedLaunch),
        ("PUT", "/", "launch=AAAA", "application/x-www-form-urlencoded", .misplacedLaunch),
        ("DELETE", "/", "launch", nil, .misplacedLaunch),
        ("POST", "/", "launch=AAAA", "application/json", .misplacedLaunch),
        ("POST", "/other", "launch=AAAA", "application/x-www-form-urlencoded", .misplacedLaunch),
        ("POST", "/", nil, "Application/X-WWW-Form-Urlencoded; charset=utf-8", .formPost),
        ("POST", "/", "launch=AAAA", "application/x-www-form-urlencoded", .formPost),
        ("POST", "/other", nil, "application/x-www-form-urlencoded", .other),
        ("GET", "/", "xlaunch=1&launcher=2&%6Caunch=3", nil, .other),
        ("HEAD", "/", nil, nil, .other),
    ] as [(String, String, String?, String?, LaunchRequestKind)])
    func launchDecision(method: String, path: String, query: String?, contentType: String?, kind: LaunchRequestKind) throws {
        let method = try #require(HTTPRequest.Method(method))
        #expect(LaunchRequestKind(method: method, path: Substring(path), query: query.map { $0[...] }, contentType: contentType, appPaths: ["/"]) == kind)
        let target = path + (query.map { "?" + $0 } ?? "")
        #expect(LaunchRequestKind(method: method, target: Substring(target), contentType: contentType, appPaths: ["/"]) == kind)
    }

    @Test("the streaming scanner finds a launch piece exactly where the splitter does, across any chunking", arguments: [
        ("launch=AAAA", true), ("a=1&launch=AAAA", true), ("a=1&launch", true), ("launch&b=2", true),
        ("a=1&xlaunch=2", false), ("launcher=1", false), ("a=launch=1", false), ("a=1&%6Caunch=2", false),
        ("", false), ("launc", false), ("&&launch=", true),
    ])
    func scanner(body: String, carries: Bool) {
        #expect(LaunchParameters.carriesLaunch(Substring(body)) == carries)
        let bytes = Array(body.utf8)
        for size in 1...max(1, bytes.count) {
            var scanner = LaunchPieceScanner()
            for start in stride(from: 0, to: bytes.count, by: size) {
                scanner.feed(bytes[start..<min(start + size, bytes.count)])
            }
            #expect(scanner.finish() == carries, "chunks of \(size)")
        }
    }

    @Test("a session gets at most its bound of upstream slots; releasing one frees it; other sessions are unaffected")
    func sessionSlots() {
        var slots = SessionSlotsState(limitPerSession: 2)
        let granted = [slots.acquire("a"), slots.acquire("a"), slots.acquire("a"), slots.acquire("b")]
        #expect(granted == [true, true, false, true])
        slots.release("a")
        let again = slots.acquire("a")
        #expect(again)
        slots.release("a")
        slots.release("a")
        slots.release("a")  // one too many: ignored, never negative
        #expect(slots.inFlight["a"] == nil)
        #expect(slots.inFlight["b"] == 1)
    }

    @Test("a lease gives its slot back when dropped")
    func leases() {
        let slots = SessionUpstreamSlots(limitPerSession: 1)
        var lease = slots.lease(for: "a")
        #expect(lease != nil)
        #expect(slots.lease(for: "a") == nil)
        lease = nil
        #expect(slots.inFlight("a") == 0)
        #expect(slots.lease(for: "a") != nil)
    }

    // Every row is answered as the earlier rule (Foundation's URL parsing for async-http-client,
    // comparing what it would send with the target) answered it, checked against that code.
    @Test("targets the HTTP client would rewrite are refused, ordinary ones kept byte for byte", arguments: [
        ("/", true), ("/a%2Fb?x=%26&y=%2526", true), ("/p;q=1?z=a+b", true), ("/page?x=1&launch=", true),
        ("/a//b/./c?x=1", true), ("/x?a=b?c/d:@!$'()*,~", true), ("//x", true), ("/x?", true), ("/a/../b", true),
        ("*", false), ("", false), ("x", false), ("http://evil.example/", false),
        ("/%zz?q=%", false), ("/a%2", false), ("/a b", false), ("/x#frag", false), ("/ü", false), ("/a\\b", false),
        ("/a\"b", false), ("/<x>", false), ("/a|b", false), ("/{x}", false), ("/a^b", false), ("/a`b", false), ("/[::1]", false),
        ("/x?y=[1]", false), ("/x?#", false),
    ])
    func forwardableTargets(target: String, forwardable: Bool) {
        #expect(GateProxy.forwardableTarget(target) == forwardable)
    }
}
