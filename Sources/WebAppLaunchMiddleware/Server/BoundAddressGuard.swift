import NIOCore
import ServiceLifecycle
import WebAppLaunch
import WebAppRegistry

/// Refuses to keep serving development keys on an address that is not loopback, judged by
/// the address the socket actually bound, not by the text of `--host`.
///
/// ``DevelopmentKeyPolicy`` reads the configured host; but `localhost` is a name, and a name
/// can resolve anywhere. So every entry point that listens with a development keyring
/// (`serve`, both shapes of the gate, the launcher) also runs this service: the server hands
/// it the channel's address once it listens, the policy judges it, and when it is not
/// loopback the service throws, which stops the service group (and the command exits 2)
/// before a request is served with public keys.
public final class BoundAddressGuard: Service {
    private let keyring: Keyring
    private let addresses: AsyncStream<SocketAddress?>
    private let continuation: AsyncStream<SocketAddress?>.Continuation

    /// Creates the guard for a keyring (it passes any address for a production keyring).
    /// - Parameter keyring: The keyring the server uses.
    public init(keyring: Keyring) {
        self.keyring = keyring
        (addresses, continuation) = AsyncStream.makeStream(of: SocketAddress?.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Adds a guard to a server's services when the keyring holds development keys, and returns
    /// the `onServerRunning` that hands it the bound address before calling `onServerRunning`:
    /// the one way an entry point wires the guard.
    /// - Parameters:
    ///   - keyring: The keyring the server uses (a production keyring adds nothing).
    ///   - services: The server's services; the guard is appended.
    ///   - onServerRunning: What the server does once it listens.
    /// - Returns: The `onServerRunning` to give the application.
    public static func install(
        for keyring: Keyring,
        in services: inout [any Service],
        onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) -> @Sendable (any Channel) async -> Void {
        guard keyring.isDevelopment else { return onServerRunning }
        let bindGuard = BoundAddressGuard(keyring: keyring)
        services.append(bindGuard)
        return { channel in
            bindGuard.serverBound(channel.localAddress)
            await onServerRunning(channel)
        }
    }

    /// Hands over the bound address (called from `onServerRunning`).
    /// - Parameter address: The listening channel's local address.
    public func serverBound(_ address: SocketAddress?) {
        continuation.yield(address)
    }

    /// Waits for the bound address and judges it.
    /// - Throws: ``ConfigurationError`` with `development_keys_off_loopback`.
    public func run() async throws {
        for await address in addresses.cancelOnGracefulShutdown() {
            try DevelopmentKeyPolicy.check(keyring, boundAddress: address?.ipAddress)
            break
        }
        try? await gracefulShutdown()
    }
}
