import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback TCP port that was free a moment ago (the kernel picks it).
public func freeLoopbackPort() throws -> Int {
    #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw SubprocessError(message: "socket failed: \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
        }
    }
    guard bound else { throw SubprocessError(message: "bind failed: \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// The HTTP status of a GET of `url` without following redirects, as `curl` reports it.
public func httpStatus(of url: String) async throws -> Int {
    let result = try await runSubprocess("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", url], timeout: .seconds(10))
    guard result.status == 0, let code = Int(result.standardOutput) else {
        throw SubprocessError(message: "curl failed: \(result)")
    }
    return code
}
