import Foundation
import Logging
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchPostgres
import WebAppLaunchTestSupport

/// A PostgreSQL store answers its claims through a callback, so `serve` exchanges its
/// launches on the connection's event loop (`LaunchFastPath`), answered when the claim's
/// batch returns: the same exchange, answers and log lines as Hummingbird's path, exactly
/// once across both, and a database that is down refused alike (503, nothing accepted).
@Suite("PostgreSQL launches exchanged on the event loop, as on Hummingbird's path", .serialized, .traced)
struct PostgresEventLoopLaunchTests {
    /// A launch sent as a browser sends it (the connection kept alive, so the event loop may
    /// take it), then `/healthz` closing the connection; returns the launch's answer as sent.
    static func launchAnswer(_ target: String, port: Int) async throws -> String {
        let raw = try await rawPipelinedGets([target, "/healthz"], port: port, limit: .seconds(10))
        let second = try #require(raw.range(of: "HTTP/1.1 ", options: [], range: raw.index(after: raw.startIndex)..<raw.endIndex))
        return String(raw[..<second.lowerBound])
    }

    /// An answer with what differs between two answers of one outcome taken out: `Date` and
    /// the sealed value of the session cookie.
    static func comparable(_ answer: String) -> [String] {
        answer.components(separatedBy: "\r\n").filter { !$0.lowercased().hasPrefix("date:") }.map { line in
            guard line.lowercased().hasPrefix("set-cookie:"), let equals = line.firstIndex(of: "="), let end = line.firstIndex(of: ";") else {
                return line
            }
            return String(line[...equals]) + "<sealed>" + String(line[end...])
        }
    }

    /// Whether a log line came from Hummingbird's request path (it tags each request's logger).
    static func servedByHummingbird(_ line: CapturedLog) -> Bool {
        line.metadata["hb.request.id"] != nil
    }

    @Test("a launch is accepted once and refused when used again on the event loop, answered and logged as on Hummingbird's path; with the database down both refuse with 503")
    func sameAsHummingbird() async throws {
        let cluster = try await PostgresTestCluster.start()
        defer { cluster.destroy() }
        let store = try PostgresFixtures.store(url: cluster.url)
        let fastLogs = LogCapture()
        let slowLogs = LogCapture()
        let (answers, downAnswers) = try await withRunning(store) {
            try await withRunningServer(replayStore: store, eventLoop: true, logger: fastLogs.makeLogger(label: "test.fast")) { fast in
                try await withRunningServer(replayStore: store, eventLoop: false, logger: slowLogs.makeLogger(label: "test.slow")) { slow in
                    var answers: [(fast: String, slow: String)] = []
                    for _ in 0..<2 {
                        let onFast = try PostgresFixtures.launchPathAndQuery()
                        let onSlow = try PostgresFixtures.launchPathAndQuery()
                        // Each launch twice: accepted, then already used (the store is shared:
                        // a launch used on one path is used on the other too).
                        answers.append((try await Self.launchAnswer(onFast, port: fast), try await Self.launchAnswer(onSlow, port: slow)))
                        answers.append((try await Self.launchAnswer(onFast, port: fast), try await Self.launchAnswer(onSlow, port: slow)))
                        answers.append((try await Self.launchAnswer(onSlow, port: fast), try await Self.launchAnswer(onFast, port: slow)))
                    }
                    try await cluster.stop()
                    let down = (
                        try await Self.launchAnswer(try PostgresFixtures.launchPathAndQuery(), port: fast),
                        try await Self.launchAnswer(try PostgresFixtures.launchPathAndQuery(), port: slow)
                    )
                    return (answers, down)
                }
            }
        }
        let statuses = answers.map { ($0.fast.prefix(12), $0.slow.prefix(12)) }
        #expect(statuses.map(\.0) == ["HTTP/1.1 303", "HTTP/1.1 401", "HTTP/1.1 401", "HTTP/1.1 303", "HTTP/1.1 401", "HTTP/1.1 401"], "\(statuses)")
        for (fast, slow) in answers {
            #expect(Self.comparable(fast) == Self.comparable(slow))
        }
        #expect(answers[0].fast.contains("\r\nSet-Cookie: "), "the accepted launch opens a session")
        #expect(downAnswers.0.hasPrefix("HTTP/1.1 503") && downAnswers.1.hasPrefix("HTTP/1.1 503"), "\(downAnswers)")
        #expect(Self.comparable(downAnswers.0) == Self.comparable(downAnswers.1))

        let fastLines = fastLogs.all.filter { $0.message.hasPrefix("launch.") }
        let slowLines = slowLogs.all.filter { $0.message.hasPrefix("launch.") }
        #expect(fastLines.map(\.message) == slowLines.map(\.message))
        #expect(fastLines.map { $0.metadata["code"] } == slowLines.map { $0.metadata["code"] })
        #expect(fastLines.map(\.message).filter { $0 == "launch.accepted" }.count == 2)
        #expect(fastLines.last?.message == "launch.replay_store_unavailable")
        #expect(fastLines.count == 7 && fastLines.allSatisfy { !Self.servedByHummingbird($0) }, "every launch answered on the event loop")
        #expect(slowLines.count == 7 && slowLines.allSatisfy(Self.servedByHummingbird), "every launch answered by Hummingbird when switched off")
    }
}
