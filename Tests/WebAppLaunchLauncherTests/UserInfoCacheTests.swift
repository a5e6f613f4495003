import Foundation
import Testing
import WebAppLaunchLauncher

/// The provider-answer cache: short, bounded, never past the token's life.
@Suite("User info cache")
struct UserInfoCacheTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let identity = ProviderIdentity(subject: "s", claims: ["sub": "s"])

    @Test("An answer is reused until the cache's maximum age, not after")
    func maximumAge() {
        let cache = UserInfoCache(maximumAge: .seconds(30))
        cache.store(Self.identity, forAccessToken: "t", now: Self.now)
        #expect(cache.identity(forAccessToken: "t", now: Self.now.addingTimeInterval(29)) == Self.identity)
        #expect(cache.identity(forAccessToken: "t", now: Self.now.addingTimeInterval(30)) == nil)
        #expect(cache.identity(forAccessToken: "other", now: Self.now) == nil)
    }

    @Test("An answer is never reused past the token's expiry")
    func tokenExpiry() {
        let cache = UserInfoCache(maximumAge: .seconds(30))
        let shortLived = ProviderIdentity(subject: "s", claims: [:], expiresAt: Self.now.addingTimeInterval(5))
        cache.store(shortLived, forAccessToken: "t", now: Self.now)
        #expect(cache.identity(forAccessToken: "t", now: Self.now.addingTimeInterval(4)) != nil)
        #expect(cache.identity(forAccessToken: "t", now: Self.now.addingTimeInterval(5)) == nil)
        let expired = ProviderIdentity(subject: "s", claims: [:], expiresAt: Self.now)
        cache.store(expired, forAccessToken: "u", now: Self.now)
        #expect(cache.identity(forAccessToken: "u", now: Self.now) == nil)
    }

    @Test("A zero age caches nothing, and ages are clamped to five minutes")
    func zeroAndClamp() {
        let off = UserInfoCache(maximumAge: .zero)
        off.store(Self.identity, forAccessToken: "t", now: Self.now)
        #expect(off.count == 0)
        #expect(UserInfoCache(maximumAge: .seconds(86_400)).maximumAge == .seconds(300))
    }

    @Test("The cache holds at most its maximum, dropping the entry closest to expiry")
    func bounded() {
        let cache = UserInfoCache(maximumAge: .seconds(60), maximumEntries: 3)
        for index in 0..<10 {
            cache.store(Self.identity, forAccessToken: "t\(index)", now: Self.now.addingTimeInterval(Double(index)))
        }
        #expect(cache.count == 3)
        #expect(cache.identity(forAccessToken: "t9", now: Self.now.addingTimeInterval(10)) != nil)
        #expect(cache.identity(forAccessToken: "t0", now: Self.now.addingTimeInterval(10)) == nil)
    }

    @Test("A removed token is asked again")
    func remove() {
        let cache = UserInfoCache()
        cache.store(Self.identity, forAccessToken: "t", now: Self.now)
        cache.remove(accessToken: "t")
        #expect(cache.identity(forAccessToken: "t", now: Self.now) == nil)
    }

    @Test("The identity's description never prints claims")
    func redacted() {
        let identity = ProviderIdentity(subject: "alice", claims: ["kvnr": "A123456780"])
        #expect(!"\(identity)".contains("A123456780"))
        #expect(!"\(identity)".contains("alice"))
    }
}
