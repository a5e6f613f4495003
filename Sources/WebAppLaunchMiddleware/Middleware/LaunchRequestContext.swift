import Hummingbird

/// A request context that can carry a verified launch session, in the style of
/// hummingbird-auth's identity on the context.
///
/// ``LaunchVerificationMiddleware`` sets ``launchSession``; handlers behind it read it, or
/// call ``requireLaunchSession()`` to get a 401 when it is missing.
public protocol LaunchRequestContext: RequestContext {
    /// The session of the verified launch, or `nil` before verification.
    var launchSession: LaunchSession? { get set }
}

extension LaunchRequestContext {
    /// The session, or a 401 error when the request is not authenticated by a launch.
    /// - Returns: The session.
    /// - Throws: `HTTPError(.unauthorized)`.
    public func requireLaunchSession() throws -> LaunchSession {
        guard let launchSession else { throw HTTPError(.unauthorized) }
        return launchSession
    }
}

/// The ready-made context for servers that need nothing else.
public struct WebAppRequestContext: LaunchRequestContext {
    /// Hummingbird's core storage.
    public var coreContext: CoreRequestContextStorage
    /// The verified launch session, set by the middleware.
    public var launchSession: LaunchSession?

    /// Creates a context for a request.
    public init(source: Source) {
        coreContext = .init(source: source)
        launchSession = nil
    }
}
