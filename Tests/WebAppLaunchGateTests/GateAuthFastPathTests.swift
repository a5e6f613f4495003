import Foundation
import NIOHTTP1
import Synchronization
import Testing
import WebAppLaunch
import WebAppLaunchGate
import WebAppLaunchReload
import WebAppLaunchTestSupport
import WebAppRegistry

/// nginx's `GET /auth` checks answered on the event loop (`AuthRequestFastPathRoute`) are the
/// endpoint's own decision: every answer alike on both paths, and only sessions' checks
/// taken off Hummingbird's path.
@Suite("Gate: /auth answered on the event loop as on Hummingbird's path")
struct GateAuthFastPathTests {
    /// A request to `/auth` of the comparison.
    struct Case: Sendable {
        let name: String
        var method: HTTPMethod = .GET
        var target = "auth"
        /// The fields besides the cookie.
        var headers: [(String, String)] = GateAuthFastPathTests.original
        var withSession = true
        /// How many more session cookies of the family ride along (removed from the app's
        /// cookies; more than an earlier configuration's maps remove is refused).
        var extraSessionCookies = 0
        /// The app's own cookies beside them (the 202's app cookies).
        var appCookies: [String] = []
        /// The refusal the endpoint logs, when it logs one.
        var logged: String?
    }

    static let original = [("X-Original-URI", "/articles?id=7"), ("X-Original-Method", "GET")]

    static let cases: [Case] = [
        Case(name: "a live session"),
        Case(name: "a live session, the original request a POST", headers: [("X-Original-URI", "/form"), ("X-Original-Method", "POST")]),
        Case(name: "a spoofed identity field", headers: original + [("X-WebApp-Launch-KVNR", "B551029382")], logged: "gate.spoofed_identity_header"),
        Case(name: "a spoofed identity field, folded", headers: original + [("x_webapp_launch_first_name", "Mallory")], logged: "gate.spoofed_identity_header"),
        Case(name: "more session cookies than an earlier configuration removes", extraSessionCookies: 4, logged: "gate.too_many_session_cookies"),
        Case(name: "three more session cookies of the family and two of the app's", extraSessionCookies: 3, appCookies: ["theme=dark", "lang=de"]),
        Case(name: "no original target", headers: [("X-Original-Method", "GET")], logged: "gate.auth_without_original_request"),
        Case(name: "an original method that is no method", headers: [("X-Original-URI", "/"), ("X-Original-Method", "G ET")], logged: "gate.auth_without_original_request"),
        Case(name: "a launch at /auth", headers: [("X-Original-URI", "/?launch=abc"), ("X-Original-Method", "GET")], logged: "gate.launch_at_auth"),
        Case(name: "no session", withSession: false),
        Case(name: "HEAD (Hummingbird's on both)", method: .HEAD),
        Case(name: "POST (Hummingbird's on both)", method: .POST),
        Case(name: "a launch piece in /auth's own query (Hummingbird's on both)", target: "auth?launch=abc"),
        Case(name: "Connection: close (Hummingbird's on both)", headers: original + [("Connection", "close")]),
    ]

    /// The reply with what may differ between two gates taken out: `Date`.
    static func comparable(_ reply: Reply) -> [String] {
        ["\(reply.status)"] + reply.headers.filter { $0.name.lowercased() != "date" }.map { "\($0.name.lowercased()): \($0.value)" } + [reply.body]
    }

    @Test("every answer of /auth is byte for byte alike (but Date) on both paths; the event loop took the sessions' checks; neither logs personal data", arguments: [false, true])
    func sameAnswers(passAccessToken: Bool) async throws {
        let fastLogs = LogCapture()
        let slowLogs = LogCapture()
        let collected = Mutex<[(String, [String], [String])]>([])
        let cookie = Mutex("")
        try await withGate(mode: .authRequest, adjust: { $0.passAccessToken = passAccessToken }, logs: fastLogs) { fastURL, fastClient in
            try await withGate(
                mode: .authRequest, adjust: { $0.passAccessToken = passAccessToken; $0.answersOnEventLoop = false }, logs: slowLogs
            ) { slowURL, slowClient in
                // One session for both gates: the same app keys seal and open it.
                let session = try await fastClient.exchange(try GateFixtures.launchURL(for: fastURL))
                cookie.withLock { $0 = session }
                let name = String(session.prefix { $0 != "=" })
                for item in Self.cases {
                    var headers = item.headers
                    if item.withSession {
                        let extra = (0..<item.extraSessionCookies).map { "\(name)=other\($0)" }
                        headers.append(("Cookie", (item.appCookies.prefix(1) + [session] + extra + item.appCookies.dropFirst()).joined(separator: "; ")))
                    }
                    let onFast = try await fastClient.send(fastURL.description + item.target, method: item.method, headers: headers)
                    let onSlow = try await slowClient.send(slowURL.description + item.target, method: item.method, headers: headers)
                    collected.withLock { $0.append((item.name, Self.comparable(onFast), Self.comparable(onSlow))) }
                }
            }
        }
        let answers = collected.withLock { $0 }
        #expect(answers.count == Self.cases.count)
        for (name, onFast, onSlow) in answers {
            #expect(onFast == onSlow, "\(name)")
        }
        let accepted = try #require(answers.first)
        #expect(accepted.1.first == "202")
        #expect(accepted.1.contains("x-webapp-launch-kvnr: A123456780"))
        #expect(accepted.1.contains { $0.hasPrefix("x-webapp-launch-access-token: ") } == passAccessToken)
        #expect(!accepted.1.contains { $0.hasPrefix("x-webapp-launch-app-cookies") }, "a request with no cookie of the app's gets no app cookies")
        let crowded = try #require(answers.first { $0.0.hasPrefix("three more session cookies") })
        #expect(crowded.1.first == "202")
        #expect(crowded.1.contains("x-webapp-launch-app-cookies: theme=dark; lang=de"), "the app's cookies, every session cookie removed: \(crowded.1)")
        for item in Self.cases {
            guard let message = item.logged else { continue }
            let fast = fastLogs.all.filter { $0.message == message }
            let slow = slowLogs.all.filter { $0.message == message }
            #expect(!fast.isEmpty && fast.count == slow.count, "\(item.name): logged alike")
            #expect(fast.allSatisfy { $0.metadata["hb.request.id"] == nil }, "\(item.name): answered on the event loop")
            #expect(slow.allSatisfy { $0.metadata["hb.request.id"] != nil }, "\(item.name): answered by Hummingbird when switched off")
        }
        // No personal data or credential in either gate's log, whichever path answered.
        let user = GateFixtures.user
        for logs in [fastLogs, slowLogs] {
            let text = logs.fullText
            for secret in [user.kvnumber, user.firstName, user.lastName, user.accessToken, String(cookie.withLock { $0 }.drop { $0 != "=" }.dropFirst())] {
                #expect(!text.contains(secret), "a log line carries personal data or a credential")
            }
        }
        // What has no session, or may be a launch, is Hummingbird's on both: counted and logged there.
        let noSession = fastLogs.all.filter { $0.metadata["code"] == "no_session" }
        #expect(!noSession.isEmpty && noSession.allSatisfy { $0.metadata["hb.request.id"] != nil })
    }

    @Test("a reload's keys apply to /auth on the event loop from the next request: a session sealed under the removed key no longer opens")
    func reloadApplies() async throws {
        let replaced = try Keyring(keys: [KeyringKey(kid: "gate-next", status: .active, secret: try KeySecret.generate())], isDevelopment: false)
            .exportingApp(GateFixtures.appID)
        let source = GateReloadTests.Source(GateFixtures.appKeyring)
        let running = Mutex<WebAppGate?>(nil)
        try await withGate(mode: .authRequest, reloadingKeyring: { source.next.withLock { $0 } }, started: { gate in running.withLock { $0 = gate } }) { publicURL, client in
            let gate = try #require(running.withLock { $0 })
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let check = { try await client.send(publicURL.description + "auth", headers: Self.original + [("Cookie", cookie)]).status }
            #expect(try await check() == 202)
            source.next.withLock { $0 = replaced }
            #expect(await gate.verification.reload() == .reloaded(generation: 1))
            #expect(try await check() == 401, "the old key's session still opened after the reload")
        }
    }
}
