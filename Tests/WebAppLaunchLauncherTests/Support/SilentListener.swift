import Foundation
import WebAppLaunchTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP socket that accepts connections (the kernel completes the handshake from
/// its backlog) and never answers: an identity provider that hangs.
final class SilentListener: @unchecked Sendable {
    // @unchecked: `fd` is written once in `init` and closed once in `close()`.
    let port: Int
    private let fd: Int32

    init() throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SubprocessError(message: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = self.fd
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard ready else {
            Glibc.close(fd)
            throw SubprocessError(message: "bind/listen failed")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { Glibc.close(fd) }
}
