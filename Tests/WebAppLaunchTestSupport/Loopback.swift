import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback TCP port that was free a moment ago, for a server a test starts itself.
///
/// Chosen at random below the kernel's ephemeral range (32768 and up here), and never the
/// same one twice in a process: a port the kernel picked from that range could be taken
/// again, before the test's server binds it, by any of the outgoing connections the tests
/// make by the thousand (a gate failed with "Address already in use" that way).
public func freeLoopbackPort() throws -> Int {
    for _ in 0..<200 {
        let port = Int.random(in: 10_000..<32_768)
        guard handedOutPorts.withLock({ $0.insert(port).inserted }) else { continue }
        if try canBind(port) { return port }
    }
    throw SubprocessError(message: "no free loopback port below 32768 after 200 tries")
}

/// Every port ``freeLoopbackPort()`` has given out in this process.
private let handedOutPorts = Mutex<Set<Int>>([])

/// Whether 127.0.0.1:`port` can be bound now (the socket is closed again at once).
private func canBind(_ port: Int) throws -> Bool {
    #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw SubprocessError(message: "socket failed: \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}

/// The HTTP status of a GET of `url` without following redirects, as `curl` reports it.
public func httpStatus(of url: String) async throws -> Int {
    let result = try await runSubprocess("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", url], timeout: .seconds(10))
    guard result.status == 0, let code = Int(result.standardOutput) else {
        throw SubprocessError(message: "curl failed: \(result)")
    }
    return code
}
