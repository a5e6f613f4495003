import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer

@Suite("An absurd server clock rejects launches instead of crashing")
struct AbsurdClockTests {
    /// Seconds since 1970 as `String`s: Swift Testing encodes arguments, and NaN does not encode.
    @Test("a clock far past 2^64 seconds, far before 1970, or NaN answers 401 with no cookie", arguments: ["1e30", "nan", "-1e30"])
    func absurdClock(interval: String) async throws {
        let date = Date(timeIntervalSince1970: Double(interval)!)
        var configuration = Fixtures.configuration()
        configuration.clock = { date }
        try configuration.validate()
        let server = try WebAppServer(configuration: configuration, replayStore: InMemoryReplayStore(capacity: 64))
        try await server.makeApplication().test(.router) { client in
            let response = try await client.get(Fixtures.launchTarget(for: Fixtures.magazin), json: true)
            #expect(response.status == .unauthorized)
            #expect(response.headers[.setCookie] == nil)
        }
    }

    @Test("UnixSeconds clamps instead of trapping and rounds down", arguments: [
        ("1e30", UInt64.max), ("nan", UInt64(0)), ("-5", UInt64(0)), ("1795000000.9", UInt64(1_795_000_000)),
    ])
    func clamps(interval: String, seconds: UInt64) {
        #expect(UnixSeconds.of(Date(timeIntervalSince1970: Double(interval)!)) == seconds)
    }
}
