import Foundation
import Hummingbird
import HummingbirdTesting
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport

/// A ``WebAppServer`` built the way production builds it, with a hand-moved clock and a
/// capturing logger, driven through HummingbirdTesting.
struct TestServer: Sendable {
    let server: WebAppServer
    let clock: ManualClock
    let logs: LogCapture

    /// - Throws: When the configuration does not validate: fixtures must be legal configurations.
    init(
        configuration: WebAppServerConfiguration = Fixtures.configuration(),
        replayStore: (any ReplayStore)? = nil,
        clock: ManualClock = ManualClock(),
        logs: LogCapture = LogCapture()
    ) throws {
        var configuration = configuration
        configuration.clock = { clock.date }
        try configuration.validate()
        self.clock = clock
        self.logs = logs
        let metrics = ServerMetrics()
        server = try WebAppServer(
            configuration: configuration,
            replayStore: replayStore ?? InMemoryReplayStore(capacity: 4096, metricsFactory: metrics.factory),
            metrics: metrics,
            logger: logs.makeLogger()
        )
    }

    /// Runs `body` against the server's application: through the router, or over a real socket.
    func test<Value: Sendable>(
        _ setup: TestingSetup = .router,
        _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        try await server.makeApplication().test(setup, body)
    }
}
