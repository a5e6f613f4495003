import NIOCore
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppRegistry

/// Review finding 8: the development-key guard read the text of `--host`; a name such as
/// `127.0.0.08` is resolved by DNS and can bind anywhere. The guard now reads the bound socket.
@Suite("Development keys are refused on a bound address that is not loopback, whatever the host text said")
struct BoundAddressGuardTests {
    @Test("loopback addresses pass and every other bound address fails", arguments: [
        ("127.0.0.1", true), ("127.255.0.8", true), ("::1", true), ("::ffff:127.0.0.1", true),
        ("0.0.0.0", false), ("10.0.0.8", false), ("192.168.1.1", false), ("::", false), ("fe80::1", false),
        ("::ffff:10.0.0.1", false), ("128.0.0.1", false),
    ])
    func loopbackDecision(ip: String, isLoopback: Bool) throws {
        let address = try SocketAddress(ipAddress: ip, port: 8080)
        #expect(RegisteredURL.isLoopbackIPAddress(try #require(address.ipAddress)) == isLoopback)
    }

    @Test("the guard service stops the service group with a configuration error when the bound address is not loopback")
    func guardThrows() async throws {
        let bindGuard = BoundAddressGuard(keyring: try DevelopmentDefaults.keyring())
        bindGuard.serverBound(try SocketAddress(ipAddress: "10.1.2.3", port: 8080))
        let error = await #expect(throws: ConfigurationError.self) { try await bindGuard.run() }
        #expect(error?.code == .developmentKeys)
    }
}
