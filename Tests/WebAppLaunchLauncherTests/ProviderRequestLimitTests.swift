import Foundation
import Synchronization
import Testing
import WebAppLaunchLauncher

/// The bound on concurrent identity-provider requests: garbage tokens cannot make the
/// launcher pass unbounded load on to the provider.
@Suite("Provider requests in flight are bounded")
struct ProviderRequestLimitTests {
    /// A provider that holds every request until the test opens the gate, counting arrivals.
    final class HeldProvider: IdentityProvider {
        private let state = Mutex<(arrived: Int, waiting: [CheckedContinuation<Void, Never>], open: Bool)>((0, [], false))

        var arrived: Int { state.withLock { $0.arrived } }

        func identity(forAccessToken accessToken: String) async throws(IdentityProviderError) -> ProviderIdentity {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    state.arrived += 1
                    if state.open { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
            return ProviderIdentity(subject: "held-" + accessToken, claims: LauncherFixtures.claims.merging(["sub": "held-" + accessToken]) { $1 })
        }

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            waiting.forEach { $0.resume() }
        }
    }

    @Test("Beyond the bound a launch is 503 at once and the provider is not asked; the slots free up afterwards")
    func requestsBeyondTheBoundAreShed() async throws {
        let provider = HeldProvider()
        let limit = ProviderRequestLimit(maximum: 2)
        let service = LauncherService(
            signer: LauncherFixtures.signer,
            identityProvider: provider,
            cache: nil,
            providerLimit: limit
        )
        try await withThrowingTaskGroup(of: MintedLaunch.self) { group in
            for token in ["first", "second"] {
                group.addTask { try await service.launch(appID: "healthmagazin", accessToken: token) }
            }
            // Bounded wait until both requests are held by the provider.
            for _ in 0..<500 where provider.arrived < 2 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(provider.arrived == 2)
            #expect(limit.current == 2)

            // The third launch must come back by itself; if it were queued behind the held
            // two, the bounded wait below ends, records the failure and lets it go.
            let thirdDone = Mutex(false)
            async let third: Result<MintedLaunch, LauncherError> = {
                defer { thirdDone.withLock { $0 = true } }
                do throws(LauncherError) {
                    return .success(try await service.launch(appID: "healthmagazin", accessToken: "third"))
                } catch {
                    return .failure(error)
                }
            }()
            for _ in 0..<500 where !thirdDone.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
            if !thirdDone.withLock({ $0 }) {
                Issue.record("a launch beyond the bound waited for the provider instead of being shed")
                provider.open()
            }
            switch await third {
            case .success: Issue.record("a third launch got a provider slot")
            case .failure(let error):
                #expect(error.code == .providerUnavailable)
                #expect(error.httpStatus == 503)
            }
            #expect(provider.arrived == 2, "a shed request must not reach the provider")

            provider.open()
            var minted = 0
            for try await _ in group { minted += 1 }
            #expect(minted == 2)
        }
        #expect(limit.current == 0)
        _ = try await service.launch(appID: "healthmagazin", accessToken: "fourth")
        #expect(provider.arrived == 3)
    }

    @Test("A slot is freed when the provider fails, too")
    func slotFreedOnFailure() async throws {
        let limit = ProviderRequestLimit(maximum: 1)
        let service = LauncherService(
            signer: LauncherFixtures.signer,
            identityProvider: StubIdentityProvider(.failure(.invalidToken)),
            cache: nil,
            providerLimit: limit
        )
        for _ in 0..<3 {
            do {
                _ = try await service.launch(appID: "healthmagazin", accessToken: "t0ken")
                Issue.record("minted for a refused token")
            } catch {
                #expect(error.code == .invalidToken)
            }
        }
        #expect(limit.current == 0)
    }
}
