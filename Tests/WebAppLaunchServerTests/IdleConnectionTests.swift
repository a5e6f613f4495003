import Foundation
import Hummingbird
import NIOCore
import Testing
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport

@Suite("Silent connections are closed after the idle timeout")
struct IdleConnectionTests {
    @Test("a connection that sends nothing is closed by the server within the idle timeout, while a normal client is served")
    func silentConnectionIsClosed() async throws {
        var configuration = Fixtures.configuration()
        configuration.port = 0
        configuration.idleTimeout = .milliseconds(500)
        try configuration.validate()
        let server = try WebAppServer(configuration: configuration, replayStore: InMemoryReplayStore(capacity: 64))
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = server.makeApplication { channel in
            continuation.yield(channel.localAddress?.port ?? 0)
            continuation.finish()
        }
        // The stream also ends if the server stops without having started, so the wait
        // for its port cannot outlive it.
        let running = Task {
            defer { continuation.finish() }
            try await application.run()
        }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())

        let waited = try await silentConnectionLifetime(port: port)
        #expect(waited != nil, "the server never closed the silent connection")
        if let waited { #expect(waited < .seconds(3)) }

        #expect(try await rawGet("/healthz", port: port).hasPrefix("HTTP/1.1 200"))
    }
}
