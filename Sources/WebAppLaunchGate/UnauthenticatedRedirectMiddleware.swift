import HTTPTypes
import Hummingbird

/// Sends a browser without a session to a sign-in or start page (303) instead of the 401
/// page, as oauth2-proxy's redirect to its sign-in does.
///
/// Only GET and HEAD requests without a `launch` parameter are redirected: a rejected launch
/// keeps its 401 page with the reason (`expired`, `already_used`), and a POST is never turned
/// into a GET elsewhere.
struct UnauthenticatedRedirectMiddleware<Context: RequestContext>: RouterMiddleware {
    let location: String
    /// A path never redirected (the auth_request endpoint, whose 401 nginx must see).
    let exemptPath: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        guard response.status == .unauthorized,
              request.method == .get || request.method == .head,
              request.uri.path != exemptPath,
              !(request.uri.queryParameters.has("launch"))
        else { return response }
        return Response(status: .seeOther, headers: [.location: location])
    }
}
