import Foundation
import Synchronization
import WebAppLaunch

/// Remembers, briefly, the tokens the identity provider refused, so the same garbage token
/// sent again and again costs the provider one request, not one per attempt.
///
/// The per-subject rate limit cannot help here (a refused token names no subject), and
/// ``ProviderRequestLimit`` only bounds concurrency. Entries are keyed by an HMAC of the
/// token under a key drawn at random when the cache is made, never by the token or a bare
/// hash of it, and live ``lifetime`` (a few seconds: a token the provider refused is not
/// going to become valid). At most ``maximumEntries`` are held; when full, expired entries
/// go first, then the oldest.
public final class RefusedTokenCache: Sendable {
    /// How long a refusal is remembered.
    public let lifetime: Duration
    /// The most refusals held at once.
    public let maximumEntries: Int
    private let digest: KeyedDigest?
    // Keyed digest → when the entry expires; read and written under the lock only.
    private let entries = Mutex<[Data: ContinuousClock.Instant]>([:])

    /// Creates a cache.
    /// - Parameters:
    ///   - lifetime: How long a refusal is remembered (clamped to 0…60 s).
    ///   - maximumEntries: The bound on entries (at least 1).
    public init(lifetime: Duration = .seconds(10), maximumEntries: Int = 10_000) {
        self.lifetime = min(max(lifetime, .zero), .seconds(60))
        self.maximumEntries = max(1, maximumEntries)
        self.digest = try? KeyedDigest.random(purpose: "launcher refused-token cache")
    }

    /// Whether a token was refused within ``lifetime``.
    public func isRefused(_ token: String, now: ContinuousClock.Instant = .now) -> Bool {
        guard let key = key(token) else { return false }
        return entries.withLock { entries in
            guard let expiry = entries[key] else { return false }
            guard now < expiry else {
                entries[key] = nil
                return false
            }
            return true
        }
    }

    /// Remembers a refusal.
    public func remember(_ token: String, now: ContinuousClock.Instant = .now) {
        guard lifetime > .zero, let key = key(token) else { return }
        let limit = maximumEntries
        let expiry = now.advanced(by: lifetime)
        entries.withLock { entries in
            if entries[key] == nil && entries.count >= limit {
                entries = entries.filter { now < $0.value }
                while entries.count >= limit, let oldest = entries.min(by: { $0.value < $1.value }) {
                    entries[oldest.key] = nil
                }
            }
            entries[key] = expiry
        }
    }

    /// Refusals held now, expired ones included until swept (for tests).
    public var count: Int { entries.withLock { $0.count } }

    private func key(_ token: String) -> Data? {
        (try? digest?.digest(Array(token.utf8))).map { Data($0) }
    }
}
