import Foundation
import Synchronization
import WebAppLaunch

/// Keeps the identity provider's answers for a short, bounded time, so a burst of launches
/// for one user costs one userinfo request.
///
/// - The key is the SHA-256 of the access token, never the token: a memory dump or a debug
///   print of the cache yields no usable token.
/// - An entry lives at most ``maximumAge`` and never past the token's expiry when the
///   provider stated one; a token revoked at the provider is therefore honoured within
///   ``maximumAge`` at the latest (set it to zero to ask every time).
/// - At most ``maximumEntries`` are kept; expired entries go first, then the ones closest
///   to expiry.
/// - Only answers that vouch for a token are kept; refusals and failures are asked again.
public final class UserInfoCache: Sendable {
    /// The longest an answer is reused.
    public let maximumAge: Duration
    /// The most answers kept at once.
    public let maximumEntries: Int

    private struct Entry {
        let identity: ProviderIdentity
        let expiresAt: Date
    }

    // Token hash → entry. Every read and write goes through the lock; an entry is only
    // returned while `now < expiresAt`.
    private let entries = Mutex<[Data: Entry]>([:])

    /// Creates a cache.
    /// - Parameters:
    ///   - maximumAge: At most this long per answer (clamped to 0…300 s).
    ///   - maximumEntries: At most this many answers (at least 1).
    public init(maximumAge: Duration = .seconds(30), maximumEntries: Int = 10_000) {
        self.maximumAge = min(max(maximumAge, .zero), .seconds(300))
        self.maximumEntries = max(1, maximumEntries)
    }

    /// The number of answers held now (expired ones included until swept), for tests.
    public var count: Int { entries.withLock { $0.count } }

    /// The cached answer for a token, if still fresh.
    /// - Parameters:
    ///   - accessToken: The token (hashed, never stored).
    ///   - now: The current time.
    /// - Returns: The identity, or `nil`.
    public func identity(forAccessToken accessToken: String, now: Date) -> ProviderIdentity? {
        guard let key = Self.key(accessToken) else { return nil }
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard now < entry.expiresAt else {
                entries[key] = nil
                return nil
            }
            return entry.identity
        }
    }

    /// Keeps an answer, unless it could not be reused anyway.
    /// - Parameters:
    ///   - identity: What the provider said.
    ///   - accessToken: The token it said it about (hashed, never stored).
    ///   - now: The current time.
    public func store(_ identity: ProviderIdentity, forAccessToken accessToken: String, now: Date) {
        guard maximumAge > .zero, let key = Self.key(accessToken) else { return }
        var expiresAt = now.addingTimeInterval(Self.seconds(maximumAge))
        if let tokenExpiry = identity.expiresAt { expiresAt = min(expiresAt, tokenExpiry) }
        guard expiresAt > now else { return }
        let limit = maximumEntries
        entries.withLock { entries in
            if entries[key] == nil && entries.count >= limit {
                entries = entries.filter { now < $0.value.expiresAt }
                while entries.count >= limit, let soonest = entries.min(by: { $0.value.expiresAt < $1.value.expiresAt }) {
                    entries[soonest.key] = nil
                }
            }
            entries[key] = Entry(identity: identity, expiresAt: expiresAt)
        }
    }

    /// Forgets the answer for a token (after the provider refused it).
    /// - Parameter accessToken: The token.
    public func remove(accessToken: String) {
        guard let key = Self.key(accessToken) else { return }
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }

    private static func key(_ token: String) -> Data? {
        (try? SHA256.hash(Array(token.utf8))).map { Data($0) }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
