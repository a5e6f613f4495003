import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import WebAppLaunch
import WebAppLaunchLauncher
import WebAppLaunchMiddleware
import WebAppLaunchTestSupport

/// The launcher's counters and its metrics listener: the endpoint `serve` and the gate have.
@Suite("Launcher metrics: minted by app, refused by code, on a listener of their own", .traced)
struct LauncherMetricsTests {
    @Test("a minted launch counts for its app; refusals count by code only, so an unregistered app id never becomes a series")
    func countsDecisions() async throws {
        let metrics = ServerMetrics()
        let vouching = LauncherService(
            signer: LauncherFixtures.signer, identityProvider: StubIdentityProvider.vouching(),
            metrics: LauncherMetrics(factory: metrics.factory)
        )
        let refusing = LauncherService(
            signer: LauncherFixtures.signer, identityProvider: StubIdentityProvider(.failure(.invalidToken)),
            metrics: LauncherMetrics(factory: metrics.factory)
        )
        _ = try await vouching.launch(appID: "healthmagazin", accessToken: "t0ken-1")
        _ = try await vouching.launch(appID: "healthmagazin", accessToken: "t0ken-2")
        await #expect(throws: LauncherError.self) { _ = try await vouching.launch(appID: "not-registered-7", accessToken: "t0ken-3") }
        await #expect(throws: LauncherError.self) { _ = try await refusing.launch(appID: "healthmagazin", accessToken: "t0ken-4") }

        let text = metrics.exposition()
        let samples = PrometheusSamples.parse(text)
        #expect(samples[#"webapp_launch_launcher_minted_total{app="healthmagazin"}"#] == 2, "\(samples)")
        #expect(samples[#"webapp_launch_launcher_refused_total{code="unknown_app"}"#] == 1)
        #expect(samples[#"webapp_launch_launcher_refused_total{code="invalid_token"}"#] == 1)
        #expect(!text.contains("not-registered-7"))
        for secret in ["t0ken", "stub-user"] + LauncherFixtures.claims.values {
            #expect(!text.contains(secret))
        }
    }

    @Test("a launch request refused at the HTTP edge (no token, wrong media type, too large, malformed) is counted by its code; the provider is never asked")
    func countsEdgeRefusals() async throws {
        let metrics = ServerMetrics()
        let provider = StubIdentityProvider.vouching()
        let service = LauncherService(
            signer: LauncherFixtures.signer, identityProvider: provider,
            metrics: LauncherMetrics(factory: metrics.factory)
        )
        let app = Application(router: LauncherRouter.make(service: service))
        try await app.test(.router) { client in
            try await client.postLaunch(token: nil, body: #"{"app":"healthmagazin"}"#) { #expect($0.status == .unauthorized) }
            try await client.execute(
                uri: "/v1/launches", method: .post,
                headers: [.authorization: "Bearer t0ken-5", .contentType: "text/plain"],
                body: ByteBuffer(string: #"{"app":"healthmagazin"}"#)
            ) { #expect($0.status == .unsupportedMediaType) }
            try await client.postLaunch(token: "t0ken-6", body: String(repeating: " ", count: 4096)) { #expect($0.status == .contentTooLarge) }
            try await client.postLaunch(token: "t0ken-7", body: #"{"app":"healthmagazin","kvnr":"x"}"#) { #expect($0.status == .unprocessableContent) }
            try await client.postLaunch(token: "t0ken-8", body: #"{"app":"healthmagazin"}"#) { #expect($0.status == .created) }
            try await client.execute(uri: "/v1/catalogue", method: .get) { #expect($0.status == .ok) }
        }
        let samples = PrometheusSamples.parse(metrics.exposition())
        for code in ["missing_token", "unsupported_media_type", "request_too_large", "invalid_request"] {
            #expect(samples["webapp_launch_launcher_refused_total{code=\"\(code)\"}"] == 1, "\(code): \(samples)")
        }
        #expect(samples[#"webapp_launch_launcher_minted_total{app="healthmagazin"}"#] == 1)
        #expect(samples.keys.filter { $0.hasPrefix("webapp_launch_launcher_refused_total") }.count == 4, "nothing else refused: \(samples)")
        #expect(provider.callCount == 1, "only the admitted launch reached the provider")
    }

    @Test("with --metrics-address the launcher serves /metrics on that listener only; without it, none opens")
    func listener() async throws {
        var configuration = LauncherApplicationTests.configuration()
        configuration.metrics = MetricsListener(host: "127.0.0.1", port: 0)
        let launcher = try LauncherApplication(configuration: configuration)
        let metricsPort = Mutex<Int?>(nil)
        try await launcher.makeApplication(onMetricsServerRunning: { channel in
            metricsPort.withLock { $0 = channel.localAddress?.port }
        }).test(.live) { client in
            // Refused at the service: the provider at 127.0.0.1:9 cannot be reached.
            try await client.postLaunch(token: "t0ken", body: #"{"app":"healthmagazin"}"#) { response in
                #expect(response.status == .serviceUnavailable)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .notFound, "never on the launcher's own listener")
            }
            var port: Int?
            for _ in 0..<200 where port == nil {  // bounded: it starts beside the launcher's listener
                port = metricsPort.withLock { $0 }
                if port == nil { try await Task.sleep(for: .milliseconds(25)) }
            }
            let scrape = try await rawGet("/metrics", port: try #require(port))
            #expect(scrape.hasPrefix("HTTP/1.1 200"))
            #expect(scrape.contains(#"webapp_launch_launcher_refused_total{code="provider_unavailable"} 1"#), "\(scrape)")
        }

        let unconfigured = try LauncherApplication(configuration: LauncherApplicationTests.configuration())
        let opened = Mutex(false)
        try await unconfigured.makeApplication(onMetricsServerRunning: { _ in opened.withLock { $0 = true } }).test(.live) { client in
            try await client.execute(uri: "/v1/catalogue", method: .get) { #expect($0.status == .ok) }
        }
        #expect(opened.withLock { $0 } == false)
    }
}
