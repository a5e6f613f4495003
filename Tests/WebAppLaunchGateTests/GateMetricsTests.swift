import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import Testing
import WebAppLaunch
import WebAppLaunchGate
import WebAppLaunchMiddleware
import WebAppLaunchTestSupport
import WebAppRegistry

/// The gate's metrics listener: the same endpoint as `serve`'s (``MetricsEndpoint``), on an
/// address of its own, counting the gate's launches in both shapes.
@Suite("Gate: metrics on a listener of their own, nothing personal in them", .serialized)
struct GateMetricsTests {
    @Test(
        "launches accepted and rejected by code are counted on the metrics listener, which the public listener never serves",
        arguments: [GateShape.reverseProxy, .authRequest]
    )
    func countsLaunches(shape: GateShape) async throws {
        let upstream = try await EchoUpstream()
        let metricsPort = Mutex<Int?>(nil)
        let mode: GateConfiguration.Mode = switch shape {
        case .reverseProxy: .reverseProxy(upstream: try GateUpstream(upstream.origin))
        case .authRequest: .authRequest
        }
        try await withGate(
            mode: mode,
            adjust: { $0.metrics = MetricsListener(host: "127.0.0.1", port: 0) },
            onMetricsServerRunning: { channel in metricsPort.withLock { $0 = channel.localAddress?.port } }
        ) { publicURL, client in
            let launch = try GateFixtures.launchURL(for: publicURL)
            let cookie = try await client.exchange(launch)
            #expect(try await client.send(launch).status == 401)  // used once already
            let tampered = launch.replacingOccurrences(of: "launch=", with: "launch=A")
            #expect(try await client.send(tampered).status == 401)
            // The public listener has no metrics: a session's request goes on to the app (or,
            // in the auth_request shape, to the gate's own fallback), without one it is refused.
            let publicMetrics = try await client.send(publicURL.description + "metrics", headers: [("Cookie", cookie)])
            #expect(!publicMetrics.body.contains("webapp_launch_"))
            #expect(try await client.send(publicURL.description + "metrics").status == 401)

            let port = try #require(try await Self.port(metricsPort))
            let scrape = try await client.send("http://127.0.0.1:\(port)/metrics")
            #expect(scrape.status == 200)
            #expect(scrape.headers["content-type"].first?.hasPrefix("text/plain; version=0.0.4") == true)
            let samples = PrometheusSamples.parse(scrape.body)
            #expect(samples[#"webapp_launch_accepted_total{app="healthmagazin"}"#] == 1)
            #expect(samples[#"webapp_launch_rejected_total{app="healthmagazin",code="already_used"}"#] == 1)
            let rejected = samples.filter { $0.key.hasPrefix("webapp_launch_rejected_total{") }.values.reduce(0, +)
            #expect(rejected >= 3, "the used, the tampered and the sessionless request: \(samples)")
            #expect(scrape.body.contains("webapp_launch_verify_duration_seconds"))
            for secret in ["A123456780", "Jürgen", "O'Brien", "Brien", cookie.split(separator: "=").last.map(String.init) ?? cookie] {
                #expect(!scrape.body.contains(secret))
            }
            #expect(try await client.send("http://127.0.0.1:\(port)/").status == 404)
        }
    }

    enum GateShape: String, Sendable, CustomTestStringConvertible {
        case reverseProxy, authRequest
        var testDescription: String { rawValue }
    }

    @Test("without a metrics listener configured (the default), the gate opens none")
    func noListenerByDefault() async throws {
        let started = Mutex(false)
        try await withGate(mode: .authRequest, onMetricsServerRunning: { _ in started.withLock { $0 = true } }) { publicURL, client in
            let reply = try await client.send(publicURL.description + "metrics")
            #expect(reply.status == 401)
        }
        #expect(started.withLock { $0 } == false)
    }

    /// The metrics listener's port, once it listens (bounded wait: it starts beside the gate's own).
    private static func port(_ port: borrowing Mutex<Int?>) async throws -> Int? {
        for _ in 0..<200 {
            if let value = port.withLock({ $0 }) { return value }
            try await Task.sleep(for: .milliseconds(25))
        }
        return nil
    }
}
