import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP client on 127.0.0.1 with bounded waits.
public final class LoopbackSocket {
    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port`.
    public init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            _ = Glibc.close(descriptor)
            throw SocketError()
        }
    }

    /// Sends `text` whole.
    public func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { throw SocketError() }
    }

    /// Waits until the peer closes; returns when that happened, or `nil` past the limit.
    public func waitForClose(limit: Duration) throws -> ContinuousClock.Instant? {
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
    public func readAll(limit: Duration) throws -> String {
        try read(limit: limit).text
    }

    /// Reads until the peer closes or the limit passes, and says which came first.
    /// - Parameter limit: How long to read.
    /// - Returns: What was read, and whether the peer closed the connection within `limit`.
    public func read(limit: Duration) throws -> (text: String, closed: Bool) {
        let deadline = ContinuousClock.now + limit
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var closed = false
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { throw SocketError() }
            guard poller.revents != 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 {
                closed = true
                break
            }
            received += buffer[0..<count]
        }
        return (String(decoding: received, as: UTF8.self), closed)
    }

    /// Closes the socket.
    public func close() { _ = Glibc.close(descriptor) }

    /// A socket call failed.
    public struct SocketError: Error {}
}

/// How long a server on 127.0.0.1:`port` keeps a connection that never sends a byte open:
/// `nil` when it was still open after `limit`. The blocking waits run off the cooperative
/// pool, which an in-process server needs.
/// - Parameters:
///   - port: The server's port.
///   - limit: The longest wait.
/// - Returns: The time from connecting to the server's close, or `nil`.
public func silentConnectionLifetime(port: Int, limit: Duration = .seconds(5)) async throws -> Duration? {
    try await offload { () throws -> Duration? in
        let silent = try LoopbackSocket(port: port)
        defer { silent.close() }
        let started = ContinuousClock.now
        return try silent.waitForClose(limit: limit).map { $0 - started }
    }
}

/// The whole answer of a server on 127.0.0.1:`port` to a GET of `path` on a new connection
/// (`Connection: close`), read off the cooperative pool.
/// - Parameters:
///   - path: The request target.
///   - port: The server's port.
/// - Returns: The raw response, status line first.
public func rawGet(_ path: String, port: Int) async throws -> String {
    try await offload { () throws -> String in
        let client = try LoopbackSocket(port: port)
        defer { client.close() }
        try client.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return try client.readAll(limit: .seconds(5))
    }
}

/// GETs of `targets` in one write on one connection, pipelined as a browser's kept-alive
/// requests would be, the last with `Connection: close`; returns every answer as sent, read
/// until the server closes (or `limit` passes).
/// - Parameters:
///   - targets: The request targets, in order (at least one).
///   - port: The loopback port.
///   - limit: How long to read.
public func rawPipelinedGets(_ targets: [String], port: Int, limit: Duration = .seconds(5)) async throws -> String {
    let requests = targets.enumerated().map { index, target in
        "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (index == targets.count - 1 ? "Connection: close\r\n" : "") + "\r\n"
    }
    return try await rawExchange(requests, port: port, limit: limit).text
}

/// Sends `requests` (whole HTTP/1 requests, pipelined in one write) to a server on
/// 127.0.0.1:`port` on a new connection and reads until the server closes it or `limit`
/// passes, off the cooperative pool.
/// - Parameters:
///   - requests: The raw requests, in order.
///   - port: The server's port.
///   - limit: How long to read.
/// - Returns: Every answer as sent, and whether the server closed the connection in time.
public func rawExchange(_ requests: [String], port: Int, limit: Duration = .seconds(5)) async throws -> (text: String, closed: Bool) {
    try await offload { () throws -> (text: String, closed: Bool) in
        let client = try LoopbackSocket(port: port)
        defer { client.close() }
        try client.send(requests.joined())
        return try client.read(limit: limit)
    }
}
