import Hummingbird
import WebAppLaunchReload

/// Launch verification whose keys can be reloaded while the server runs: each request takes
/// the ``LaunchVerificationMiddleware`` of the configuration in use when it arrives
/// (``ReloadableConfiguration/current``) and is verified, claimed and answered with it to
/// the end, however many reloads happen meanwhile.
///
/// `serve` and the gate put this where they would put the middleware itself; `Value` is
/// what their reload builds (for the gate the middleware, for `serve` every served app's),
/// and `select` picks this route's middleware from it.
public struct ReloadingLaunchMiddleware<Value: Sendable, Context: LaunchRequestContext>: RouterMiddleware {
    /// The configuration the middleware comes from.
    public let configuration: ReloadableConfiguration<Value>
    private let select: @Sendable (Value) -> LaunchVerificationMiddleware<Context>

    /// - Parameters:
    ///   - configuration: The reloadable configuration.
    ///   - select: This route's middleware in a configuration.
    public init(
        _ configuration: ReloadableConfiguration<Value>,
        select: @escaping @Sendable (Value) -> LaunchVerificationMiddleware<Context>
    ) {
        self.configuration = configuration
        self.select = select
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let snapshot = configuration.withCurrent(select)  // once: the request ends on these keys
        return try await snapshot.handle(request, context: context, next: next)
    }
}

extension ReloadingLaunchMiddleware where Value == LaunchVerificationMiddleware<Context> {
    /// Verification from a configuration that is the middleware itself (one app: the gate).
    /// - Parameter configuration: The reloadable middleware.
    public init(_ configuration: ReloadableConfiguration<Value>) {
        self.init(configuration) { $0 }
    }
}
