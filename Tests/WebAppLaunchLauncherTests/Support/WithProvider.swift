import AsyncHTTPClient
import Foundation
import WebAppLaunchLauncher
import WebAppLaunchTestSupport

/// Runs `body` with a fresh `oidc-provider-mock` and a launcher HTTP client pointed at it;
/// stops both afterwards, whatever happens. At most two providers run at once: each is a
/// Python process whose start-up takes a core for a second or two, and this machine has two.
func withOIDCProvider<T>(
    timeout: Duration = .seconds(5),
    _ body: (OIDCProviderMock, OpenIDUserInfoProvider) async throws -> T
) async throws -> T {
    TestTrace.note("provider: waiting for a slot")
    await ProviderSlots.shared.acquire()
    TestTrace.note("provider: slot taken")
    defer { Task { await ProviderSlots.shared.release() } }
    let mock = try await OIDCProviderMock.start()
    TestTrace.note("provider: started on port \(mock.port)")
    let client = IdentityProviderHTTPClient.make(connectTimeout: .seconds(2))
    let provider = OpenIDUserInfoProvider(issuer: mock.issuer, httpClient: client, timeout: timeout)
    do {
        let result = try await body(mock, provider)
        TestTrace.note("provider: body returned")
        try await client.shutdown()
        TestTrace.note("provider: launcher client shut down")
        try await mock.stop()
        TestTrace.note("provider: stopped")
        return result
    } catch {
        TestTrace.note("provider: body threw \(error)")
        try? await client.shutdown()
        TestTrace.note("provider: launcher client shut down")
        try? await mock.stop()
        TestTrace.note("provider: stopped")
        throw error
    }
}

/// The running providers' slots.
enum ProviderSlots {
    static let shared = Slots(count: 2)
}
