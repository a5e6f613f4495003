/// What the rate limiter decided for one request.
public enum RateLimitDecision: Sendable, Hashable {
    /// Go ahead; one unit was taken.
    case allowed
    /// Over the limit; try again after this many whole seconds (for `Retry-After`).
    case limited(retryAfterSeconds: Int)
}
