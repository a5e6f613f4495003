import AsyncHTTPClient
import Testing
import WebAppLaunch
@testable import WebAppLaunchGate
import WebAppRegistry

/// The gate's HTTP client to the upstream: what it must never do (follow redirects, retry a
/// refused connection, decompress) and how many connections it may hold.
@Suite("Gate: the upstream client's settings")
struct UpstreamClientTests {
    static func configuration(maximumUpstreamConnections: Int? = nil) throws -> GateConfiguration {
        var configuration = GateConfiguration(
            appID: GateFixtures.appID,
            publicURL: try RegisteredURL("http://127.0.0.1:4180/"),
            keyring: GateFixtures.appKeyring,
            mode: .authRequest
        )
        if let maximumUpstreamConnections { configuration.maximumUpstreamConnections = maximumUpstreamConnections }
        return configuration
    }

    @Test("the connection limit is the configured one (64 by default, not the client library's 8), and at least 1")
    func connectionLimit() throws {
        #expect(GateProxy.clientConfiguration(for: try Self.configuration()).connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit == 64)
        #expect(GateProxy.clientConfiguration(for: try Self.configuration(maximumUpstreamConnections: 200)).connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit == 200)
        #expect(GateProxy.clientConfiguration(for: try Self.configuration(maximumUpstreamConnections: 0)).connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit == 1)
    }

    @Test("redirects are never followed, refused connections never retried, bodies never decompressed")
    func neverFollowsOrRetries() throws {
        let client = GateProxy.clientConfiguration(for: try Self.configuration())
        #expect(client.connectionPool.retryConnectionEstablishment == false)
        guard case .disabled = client.decompression else {
            Issue.record("the upstream client decompresses bodies")
            return
        }
        #expect("\(client.redirectConfiguration)".contains("disallow"))
    }
}
