import Foundation
import Hummingbird
import NIOCore
import Testing
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport

#if canImport(Glibc)
import Glibc
#endif

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

        // Blocking socket waits run on a blocking thread, never on the cooperative pool the
        // in-process server needs.
        let waited = try await offload { () throws -> Duration? in
            let silent = try LoopbackSocket(port: port)
            defer { silent.close() }
            let started = ContinuousClock.now
            return try silent.waitForClose(limit: .seconds(5)).map { $0 - started }
        }
        #expect(waited != nil, "the server never closed the silent connection")
        if let waited { #expect(waited < .seconds(3)) }

        let answer = try await offload { () throws -> String in
            let client = try LoopbackSocket(port: port)
            defer { client.close() }
            try client.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return try client.readAll(limit: .seconds(5))
        }
        #expect(answer.hasPrefix("HTTP/1.1 200"))
    }
}

/// A blocking TCP client on 127.0.0.1 with bounded waits.
final class LoopbackSocket {
    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw SocketError() }
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { throw SocketError() }
    }

    /// Waits until the peer closes; returns when that happened, or `nil` past the limit.
    func waitForClose(limit: Duration) throws -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + limit
        var buffer = [UInt8](repeating: 0, count: 512)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { throw SocketError() }
            if poller.revents != 0 {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                if count <= 0 { return ContinuousClock.now }
            }
        }
        return nil
    }

    /// Reads until the peer closes or the limit passes.
    func readAll(limit: Duration) throws -> String {
        let deadline = ContinuousClock.now + limit
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { throw SocketError() }
            guard poller.revents != 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    func close() { _ = Glibc.close(descriptor) }

    struct SocketError: Error {}
}
