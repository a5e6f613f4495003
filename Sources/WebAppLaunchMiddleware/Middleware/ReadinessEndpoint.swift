import HTTPTypes
import Hummingbird
import NIOCore
import WebAppLaunchReload

/// Answers `GET /readyz` (and `HEAD`) from the replay store's ``ReplayStore/readiness()``:
/// `200 ready` or `503 not ready`, so a load balancer takes an instance whose store cannot
/// claim (its database down, restarting or refusing) out of rotation instead of sending it
/// launches that would each wait for the claim deadline and a 503.
///
/// One mechanism for every entry point: the sample server and the gate both add it, in
/// front of verification (and, in the gate, of the proxy, so `/readyz` is never forwarded).
/// Every other request passes through untouched. `/healthz` stays a plain liveness check.
/// Once shutdown begins (``ReadinessSwitch``, turned off first on SIGTERM by
/// ``ReadinessDrainService``) it answers 503 without asking the store, while the server
/// still serves what is in flight.
public struct ReadinessEndpoint<Context: RequestContext>: RouterMiddleware {
    /// The path it answers.
    public static var path: String { "/readyz" }

    /// The store whose readiness is reported.
    public let store: any ReplayStore

    /// Off once shutdown began; `nil` when nothing drains this endpoint's server.
    public let readiness: ReadinessSwitch?

    /// - Parameters:
    ///   - store: The replay store launches are claimed in.
    ///   - readiness: The process's shutdown switch, if it has one.
    public init(store: any ReplayStore, readiness: ReadinessSwitch? = nil) {
        self.store = store
        self.readiness = readiness
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path == Self.path, request.method == .get || request.method == .head else {
            return try await next(request, context)
        }
        var ready = false
        if readiness?.isAcceptingWork != false {
            ready = await store.readiness()
        }
        return Response(
            status: ready ? .ok : .serviceUnavailable,
            headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: ready ? "ready\n" : "not ready\n"))
        )
    }
}
