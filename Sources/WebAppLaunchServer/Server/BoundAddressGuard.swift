import NIOCore
import ServiceLifecycle

/// Refuses to keep serving development keys on an address that is not loopback, judged by
/// the address the socket actually bound, not by the text of `--host`.
///
/// A host such as `127.0.0.08` is not an IPv4 literal to the resolver, which then looks it up
/// as a name, and a name can resolve anywhere. The configuration check reads the text; this
/// service reads the bound socket: the server hands it the channel once it listens, and when
/// the address is not loopback the service throws, which stops the service group (and
/// `webapp-launch serve` exits 2) before a request is served with public keys.
final class BoundAddressGuard: Service {
    private let addresses: AsyncStream<SocketAddress?>
    private let continuation: AsyncStream<SocketAddress?>.Continuation

    init() {
        (addresses, continuation) = AsyncStream.makeStream(of: SocketAddress?.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Hands over the bound address (called from `onServerRunning`).
    func serverBound(_ address: SocketAddress?) {
        continuation.yield(address)
    }

    func run() async throws {
        for await address in addresses.cancelOnGracefulShutdown() {
            guard let address, Self.isLoopback(address) else {
                throw ServerConfigurationError(
                    "refusing development keys: the server bound \(address.map { "\($0)" } ?? "an unknown address"), which is not loopback"
                )
            }
            break
        }
        try? await gracefulShutdown()
    }

    /// Whether a socket address is IPv4 127.0.0.0/8, IPv6 `::1`, or IPv4-mapped loopback.
    static func isLoopback(_ address: SocketAddress) -> Bool {
        guard let ip = address.ipAddress?.lowercased() else { return false }
        switch address.protocol {
        case .inet: return ip.hasPrefix("127.")
        case .inet6: return ip == "::1" || ip.hasPrefix("::ffff:127.")
        default: return false
        }
    }
}
