import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import WebAppLaunch
@testable import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport
import WebAppRegistry

/// The event-loop launch path (`LaunchFastPath`) is the same exchange as Hummingbird's
/// path: every outcome answered alike, nothing answered out of order, and only where the
/// store claims without waiting.
@Suite("Launches answered on the event loop are answered as Hummingbird's path answers them")
struct LaunchFastPathTests {
    /// A request of the comparison: its target and the fields it carries.
    struct Case: Sendable {
        let name: String
        let target: String
        var headers = HTTPFields()
    }

    static let expiredIssue = Fixtures.now.addingTimeInterval(-3600)

    /// Every outcome of a query launch; each case runs on a fresh pair of servers, in order.
    static let cases: [Case] = [
        Case(name: "sealed launch", target: Fixtures.launchTarget(for: Fixtures.magazin)),
        Case(name: "signed launch", target: Fixtures.launchTarget(for: Fixtures.magazin, mode: .signed)),
        Case(name: "launch with the registered query", target: Fixtures.launchTarget(for: Fixtures.bonus)),
        Case(
            name: "bad MAC",
            target: "/apps/healthmagazin?launch=" + Fixtures.flippingBit(of: Fixtures.token(for: Fixtures.magazin), atByte: -1)
        ),
        Case(name: "another app's launch", target: "/apps/healthmagazin?launch=" + Fixtures.token(for: Fixtures.bonus)),
        Case(name: "expired", target: Fixtures.launchTarget(for: Fixtures.magazin, issuedAt: expiredIssue)),
        Case(name: "not base64", target: "/apps/healthmagazin?launch=%%%"),
        Case(name: "empty launch", target: "/apps/healthmagazin?launch="),
        Case(name: "JSON rejection", target: Fixtures.launchTarget(for: Fixtures.magazin, issuedAt: expiredIssue), headers: [.accept: "application/json"]),
    ]

    /// A response with what may differ between two servers taken out: `Date`, and the sealed
    /// value of a session cookie (AES-GCM under a random nonce).
    static func comparable(_ response: TestResponse) -> [String] {
        var lines = ["\(response.status.code)"]
        for field in response.headers where field.name != .date {
            if field.name == .setCookie, let cookie = SetCookie(field.value) {
                lines.append("set-cookie: \(cookie.name)=<sealed>" + field.value.drop { $0 != ";" })
            } else {
                lines.append("\(field.name.canonicalName): \(field.value)")
            }
        }
        return lines + [response.text]
    }

    /// Whether a captured exchange line came from Hummingbird's request path (which tags
    /// each request's logger) rather than the event loop's.
    static func servedByHummingbird(_ line: CapturedLog) -> Bool {
        line.metadata["hb.request.id"] != nil
    }

    static func server(eventLoop: Bool, logs: LogCapture = LogCapture()) throws -> TestServer {
        var configuration = Fixtures.configuration()
        configuration.answersLaunchesOnEventLoop = eventLoop
        return try TestServer(configuration: configuration, logs: logs)
    }

    static func exchangeLines(_ logs: LogCapture) -> [CapturedLog] {
        logs.all.filter { $0.message.hasPrefix("launch.") }
    }

    @Test("every outcome of a query launch, sent twice, is answered byte for byte alike (but Date and the sealed cookie) on both paths, and the event loop answered it")
    func sameAnswers() async throws {
        for item in Self.cases {
            let fastLogs = LogCapture()
            let slowLogs = LogCapture()
            let fast = try Self.server(eventLoop: true, logs: fastLogs)
            let slow = try Self.server(eventLoop: false, logs: slowLogs)
            let answers = try await fast.test(.live) { fastClient in
                try await slow.test(.live) { slowClient in
                    var answers: [([String], [String])] = []
                    for _ in 0..<2 {  // the second is a replay where the first was accepted
                        let onFast = try await fastClient.execute(uri: item.target, method: .get, headers: item.headers)
                        let onSlow = try await slowClient.execute(uri: item.target, method: .get, headers: item.headers)
                        answers.append((Self.comparable(onFast), Self.comparable(onSlow)))
                    }
                    return answers
                }
            }
            for (onFast, onSlow) in answers {
                #expect(onFast == onSlow, "\(item.name)")
            }
            let fastLines = Self.exchangeLines(fastLogs)
            let slowLines = Self.exchangeLines(slowLogs)
            #expect(fastLines.count == 2 && slowLines.count == 2, "\(item.name): one exchange line per request")
            #expect(fastLines.map(\.message) == slowLines.map(\.message), "\(item.name)")
            #expect(fastLines.map { $0.metadata["code"] } == slowLines.map { $0.metadata["code"] }, "\(item.name)")
            #expect(fastLines.allSatisfy { !Self.servedByHummingbird($0) }, "\(item.name): answered on the event loop")
            #expect(slowLines.allSatisfy(Self.servedByHummingbird), "\(item.name): answered by Hummingbird when switched off")
        }
    }

    @Test("a cross-site launch for another user beside a live session is refused on the event loop as on Hummingbird's path, and the session stays")
    func loginCSRFOnBothPaths() async throws {
        let attacker = LaunchUser(accessToken: "attacker-token", firstName: "Mallory", lastName: "Angreifer", kvnumber: "B551029382")
        for eventLoop in [true, false] {
            let logs = LogCapture()
            let server = try Self.server(eventLoop: eventLoop, logs: logs)
            try await server.test(.live) { client in
                let cookie = try await client.sessionCookie(for: Fixtures.token(for: Fixtures.magazin), at: Fixtures.magazin)
                var headers = requestHeaders(cookie: cookie, json: true)
                headers[HTTPField.Name("Sec-Fetch-Site")!] = "cross-site"
                let foreign = try await client.execute(
                    uri: Fixtures.launchTarget(for: Fixtures.magazin, user: attacker), method: .get, headers: headers
                )
                #expect(foreign.status == .unauthorized)
                #expect(foreign.jsonObject?["error"] == "invalid")
                #expect(foreign.sessionCookie == nil, "the live session is not replaced")
            }
            let refusal = try #require(logs.lines("launch.rejected", where: "code", is: "session_conflict").first)
            #expect(Self.servedByHummingbird(refusal) == !eventLoop)
        }
    }

    @Test("pipelined requests are answered in order: a launch on an idle turn on the event loop, a launch behind a request Hummingbird owes after it, and `Connection: close` still closes")
    func pipelinedOrder() async throws {
        let logs = LogCapture()
        let server = try Self.server(eventLoop: true, logs: logs)
        let first = Fixtures.launchTarget(for: Fixtures.magazin)
        let second = Fixtures.launchTarget(for: Fixtures.bonus)
        let (raw, elapsed) = try await server.test(.live) { client in
            let port = try #require(client.port)
            // One write: a launch (the connection owes nothing: the event loop answers it),
            // /healthz (Hummingbird), a launch behind it (answering it at once would overtake
            // /healthz's answer), then /healthz with `Connection: close`.
            let started = ContinuousClock.now
            let raw = try await rawPipelinedGets([first, "/healthz", second, "/healthz"], port: port)
            return (raw, ContinuousClock.now - started)
        }
        #expect(elapsed < .seconds(4), "the server closed the connection after `Connection: close`")
        let statuses = raw.matches(of: /HTTP\/1\.1 (\d{3})/).map { String($0.output.1) }
        #expect(statuses == ["303", "200", "303", "200"], "\(statuses)")
        let locations = raw.matches(of: /\r\nLocation: ([^\r]*)\r\n/).map { String($0.output.1) }
        #expect(locations == [Fixtures.cleanTarget(of: Fixtures.magazin), Fixtures.cleanTarget(of: Fixtures.bonus)])
        #expect(raw.hasSuffix("\r\n\r\nok\n"), "the last answer is whole")
        // Each launch's session cookie in its own answer, right after its Location, and in no
        // other: the event loop's answer hands its cookie to the codec beside its head only.
        let answers = raw.components(separatedBy: "HTTP/1.1 ").dropFirst()
        #expect(answers.map { $0.components(separatedBy: "\r\nSet-Cookie: ").count - 1 } == [1, 0, 1, 0])
        #expect(answers.map { $0.contains(#/\r\nLocation: [^\r]*\r\nSet-Cookie: /#) } == [true, false, true, false])
        let onIdleTurn = try #require(logs.lines("launch.accepted", where: "app", is: Fixtures.magazin.id).first)
        #expect(!Self.servedByHummingbird(onIdleTurn), "the first launch was answered on the event loop")
        #expect(logs.lines("launch.accepted", where: "app", is: Fixtures.bonus.id).count == 1)
    }

    @Test("launches whose store only waits in a task (it neither claims at once nor answers through a callback) are never answered on the event loop")
    func waitingStoreStaysOnHummingbird() async throws {
        let logs = LogCapture()
        let server = try TestServer(replayStore: FailingReplayStore(), logs: logs)
        try await server.test(.live) { client in
            let response = try await client.get(Fixtures.launchTarget(for: Fixtures.magazin))
            #expect(response.status == .serviceUnavailable)
        }
        let line = try #require(logs.all.first { $0.message == "launch.replay_store_unavailable" })
        #expect(Self.servedByHummingbird(line))
    }
}

@Suite("The event-loop launch path answers a connection's requests in their order")
struct LaunchFastPathStateTests {
    @Test("a launch on an idle connection is held and answered at its end; its body parts are dropped")
    func holdsOnIdle() {
        var state = LaunchFastPathState()
        #expect(state.mayAnswer)
        #expect(state.head(answerable: true) == .hold)
        #expect(!state.mayAnswer, "one held request at a time")
        #expect(state.body() == .drop)
        #expect(state.end() == .answer)
        #expect(state.mayAnswer)
        #expect(state.owedResponses == 0)
    }

    @Test("a launch behind a passed request that still owes its response is passed on, and held again once every response ended")
    func passesBehindOwedResponse() {
        var state = LaunchFastPathState()
        #expect(state.head(answerable: false) == .pass)
        #expect(state.end() == .pass)
        #expect(!state.mayAnswer)
        #expect(state.head(answerable: true) == .pass, "answering now would overtake the first response")
        #expect(state.body() == .pass)
        #expect(state.end() == .pass)
        state.passedResponseEnded()
        #expect(!state.mayAnswer, "the second passed request still owes its response")
        state.passedResponseEnded()
        #expect(state.mayAnswer)
        #expect(state.head(answerable: true) == .hold)
    }

    @Test("while a relayed answer is written every later part waits, answerable or not; then the next request may be answered again")
    func waitsWhileRelaying() {
        var state = LaunchFastPathState()
        #expect(state.head(answerable: true) == .hold)
        #expect(state.end() == .answer)
        state.relayStarted()
        #expect(!state.mayAnswer, "a second answer would overtake the relayed one")
        #expect(state.head(answerable: false) == .wait, "Hummingbird's answer would overtake the relayed one")
        #expect(state.body() == .wait)
        #expect(state.end() == .wait)
        #expect(state.owedResponses == 0, "a waiting request owes nothing yet")
        state.relayEnded()
        #expect(state.mayAnswer)
        #expect(state.head(answerable: false) == .pass)
        #expect(state.owedResponses == 1)
    }

    @Test("a relayed request passed on to Hummingbird owes its response from then on")
    func relayPassedOn() {
        var state = LaunchFastPathState()
        #expect(state.head(answerable: true) == .hold)
        #expect(state.end() == .answer)
        state.relayStarted()
        state.relayPassedOn()
        #expect(state.owedResponses == 1)
        #expect(!state.mayAnswer, "its response is still owed")
        #expect(state.head(answerable: true) == .pass)
        state.passedResponseEnded()
        state.passedResponseEnded()
        #expect(state.mayAnswer)
    }

    @Test("a request that is not an answerable launch is always passed on")
    func passesOthers() {
        var state = LaunchFastPathState()
        #expect(state.head(answerable: false) == .pass)
        #expect(state.body() == .pass)
        #expect(state.end() == .pass)
        #expect(state.owedResponses == 1)
    }
}

@Suite("Head fields of the event-loop launch path")
struct LaunchFastPathHeadTests {
    @Test("an answer's head gets its length, the listener's security fields and Date once each, appended or replacing its own of the same name, as Hummingbird's path adds them", arguments: [false, true])
    func answerHeadFields(overlapping: Bool) throws {
        let security = SecurityHeadersMiddleware<WebAppRequestContext>(contentSecurityPolicy: "default-src 'none'", strictTransportSecurity: true)
        let fastPath = LaunchFastPath(securityHeaders: security, logger: Logger(label: "test")) { _ in nil }
        var own: HTTPFields = [.location: "/apps/healthmagazin", .setCookie: "s=1; Path=/"]
        if overlapping {
            let replaced = try #require(security.headers.first)
            own[replaced.name] = "the answer's own"
            own[.contentLength] = "999"
            own[.date] = "yesterday"
        }
        let answer = LaunchAnswer(status: .seeOther, headerFields: own, body: ByteBuffer(string: "body"))
        let fields = fastPath.headerFields(of: answer)

        // What Hummingbird's path sends: the length, each security field set by name, Date.
        var expected = own
        expected[.contentLength] = "4"
        for field in security.headers { expected[fields: field.name] = [field] }
        let names = Set(fields.map(\.name))
        #expect(names.count == fields.count, "each field once: \(fields)")
        #expect(fields[.contentLength] == "4")
        #expect(fields[.location] == "/apps/healthmagazin" && fields[.setCookie] == "s=1; Path=/")
        for field in security.headers { #expect(fields[field.name] == field.value, "\(field.name)") }
        #expect(fields[.date].map { $0.hasSuffix(" GMT") && $0 != "yesterday" } == true, "\(fields)")
        #expect(Array(fields.filter { $0.name != .date }) == Array(expected.filter { $0.name != .date }))
    }
}

@Suite("Date fields of the event-loop launch path")
struct HTTPDateCacheTests {
    @Test("IMF-fixdate as RFC 9110 gives it, and as Foundation formats it across four centuries of days")
    func format() throws {
        #expect(HTTPDateCache.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDateCache.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDateCache.format(951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var seconds: Int64 = 0
        while seconds < 12_622_780_800 {  // to 2370
            #expect(HTTPDateCache.format(seconds) == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))))
            seconds += 86_400 * 37 + 3_607
        }
        let now = HTTPDateCache.shared.value
        #expect(now.hasSuffix(" GMT") && now.count == 29)
    }
}

/// The event-loop path reads a launch's target as NIO's parser passed it, without HTTP Types'
/// second check (`UncheckedHeadValues`): the parser must refuse every byte that check would.
@Suite("Targets with bytes no request target may hold")
struct IllegalTargetByteTests {
    /// Bytes after a valid launch's target: a tab or form feed (which a lenient parser takes
    /// as a separator), one before the version, DEL, a control, a non-ASCII letter.
    static let suffixes = ["\t", "\u{0C}", "\tHTTP/1.1\r\nX:", "\u{0C}HTTP/1.1\r\nX:", "&x=a\tb", "\u{7F}", "\u{01}", "&x=\u{E9}"]

    @Test("are refused 400 by the parser before any route, on the event loop's path and on Hummingbird's: no session, no exchange", arguments: [true, false])
    func refusedByParser(eventLoop: Bool) async throws {
        let logs = LogCapture()
        let server = try LaunchFastPathTests.server(eventLoop: eventLoop, logs: logs)
        let answers = try await server.test(.live) { client in
            let port = try #require(client.port)
            var answers: [String] = []
            for suffix in Self.suffixes {
                answers.append(try await rawGet(Fixtures.launchTarget(for: Fixtures.magazin) + suffix, port: port))
            }
            // The same launch without the bytes is accepted: the refusals were the bytes'.
            answers.append(try await rawGet(Fixtures.launchTarget(for: Fixtures.magazin), port: port))
            return answers
        }
        for (suffix, answer) in zip(Self.suffixes, answers) {
            #expect(answer.hasPrefix("HTTP/1.1 400 "), "\(Array(suffix.utf8))")
            #expect(!answer.contains("Set-Cookie"), "\(Array(suffix.utf8))")
        }
        #expect(answers.last?.hasPrefix("HTTP/1.1 303 ") == true)
        #expect(LaunchFastPathTests.exchangeLines(logs).map(\.message) == ["launch.accepted"], "only the clean launch reached the exchange")
    }
}
