import HTTPTypes
import Hummingbird
import NIOCore

/// Answers `GET /readyz` (and `HEAD`) from the replay store's ``ReplayStore/readiness()``:
/// `200 ready` or `503 not ready`, so a load balancer takes an instance whose store cannot
/// claim (its database down, restarting or refusing) out of rotation instead of sending it
/// launches that would each wait for the claim deadline and a 503.
///
/// One mechanism for every entry point: the sample server and the gate both add it, in
/// front of verification (and, in the gate, of the proxy, so `/readyz` is never forwarded).
/// Every other request passes through untouched. `/healthz` stays a plain liveness check.
public struct ReadinessEndpoint<Context: RequestContext>: RouterMiddleware {
    /// The path it answers.
    public static var path: String { "/readyz" }

    /// The store whose readiness is reported.
    public let store: any ReplayStore

    /// - Parameter store: The replay store launches are claimed in.
    public init(store: any ReplayStore) {
        self.store = store
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path == Self.path, request.method == .get || request.method == .head else {
            return try await next(request, context)
        }
        let ready = await store.readiness()
        return Response(
            status: ready ? .ok : .serviceUnavailable,
            headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: ready ? "ready\n" : "not ready\n"))
        )
    }
}
