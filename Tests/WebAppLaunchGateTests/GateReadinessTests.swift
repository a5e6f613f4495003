import NIOHTTP1
import Testing
import WebAppLaunchGate
import WebAppLaunchTestSupport
import WebAppRegistry

/// The gate answers `/readyz` itself (``ReadinessEndpoint``), from its replay store.
@Suite("Gate: /readyz reports the replay store's readiness and is never proxied", .serialized)
struct GateReadinessTests {
    @Test("/readyz is answered 200 ready by the gate without a session, and never reaches the upstream")
    func readyzIsTheGates() async throws {
        let upstream = try await EchoUpstream()
        try await withGate(mode: .reverseProxy(upstream: try GateUpstream(upstream.origin))) { publicURL, client in
            let reply = try await client.send(publicURL.description + "readyz")
            #expect(reply.status == 200)
            #expect(reply.body == "ready\n")
            #expect(reply.headers["x-upstream"].isEmpty, "/readyz was proxied upstream")
            let control = try await client.send(publicURL.description + "articles")
            #expect(control.status != 200, "control: a path without a session reached the upstream")
        }
    }
}
