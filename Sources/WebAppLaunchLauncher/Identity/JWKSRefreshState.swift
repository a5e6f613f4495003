/// When the launcher fetches the issuer's JSON Web Key Set: a value-type state machine, so
/// the bounded refetch rate can be tested without a clock or a network.
///
/// Keys are reused for ``lifetime``. A token signed with a key id the set does not hold may
/// mean the issuer rotated its keys, so the set is fetched again, but at most once per
/// ``minimumRefetchInterval``: tokens with made-up key ids cannot make the launcher hammer
/// the provider. While a fetch runs, requests that need it wait for it instead of starting
/// another.
package struct JWKSRefreshState<Keys> {
    /// Decisions for one token's key id.
    package enum Decision {
        /// Verify with these keys.
        case use(Keys)
        /// Fetch the set now (the caller reports the outcome), then decide again.
        case fetch
        /// A fetch is running; wait for it, then decide again.
        case waitForFetch
        /// The key id is not in the set and may not be fetched again yet: the token is refused.
        case unknownKey
        /// No usable set: the provider is unavailable.
        case unavailable
    }

    package let lifetime: Duration
    package let minimumRefetchInterval: Duration
    package private(set) var keys: Keys?
    private var knownKeyIDs: Set<String> = []
    private var fetchedAt: ContinuousClock.Instant?
    private var lastFetchStarted: ContinuousClock.Instant?
    package private(set) var isFetching = false
    private var lastFetchFailed = false

    package init(lifetime: Duration, minimumRefetchInterval: Duration) {
        self.lifetime = lifetime
        self.minimumRefetchInterval = minimumRefetchInterval
    }

    /// What to do for a token signed with `kid`.
    package mutating func decide(kid: String, now: ContinuousClock.Instant) -> Decision {
        let known = knownKeyIDs.contains(kid)
        if let keys, known, let fetchedAt, fetchedAt.duration(to: now) < lifetime { return .use(keys) }
        if isFetching { return .waitForFetch }
        if lastFetchStarted.map({ $0.duration(to: now) >= minimumRefetchInterval }) ?? true {
            lastFetchStarted = now
            isFetching = true
            return .fetch
        }
        if let keys, known { return .use(keys) }
        if keys == nil || lastFetchFailed { return .unavailable }
        return .unknownKey
    }

    /// A fetch brought a new set.
    package mutating func fetched(_ keys: Keys, keyIDs: Set<String>, now: ContinuousClock.Instant) {
        self.keys = keys
        knownKeyIDs = keyIDs
        fetchedAt = now
        isFetching = false
        lastFetchFailed = false
    }

    /// A fetch failed; the old set (if any) stays.
    package mutating func fetchFailed() {
        isFetching = false
        lastFetchFailed = true
    }
}

extension JWKSRefreshState: Sendable where Keys: Sendable {}
extension JWKSRefreshState.Decision: Sendable where Keys: Sendable {}
