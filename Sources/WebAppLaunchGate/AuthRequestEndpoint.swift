import HTTPTypes
import Hummingbird
import Logging
import WebAppLaunchMiddleware

/// nginx's `auth_request` endpoint: `GET /auth` answers 202 Accepted with the identity headers
/// for a request whose session cookie is valid, and 401 otherwise.
///
/// nginx sends a subrequest here for every request it serves, with the client's headers
/// (so the session cookie); `auth_request_set` copies the identity headers from this answer
/// into the request it forwards. The session check itself is ``LaunchVerificationMiddleware``
/// in front of this endpoint, exactly as for a Hummingbird app, so both shapes of the gate
/// accept the same sessions. Any status other than 2xx, 401 or 403 makes nginx answer 500,
/// so the endpoint uses no others.
///
/// nginx's subrequest carries the client's own headers. nginx cannot remove header names by
/// prefix, so when the client sent any `X-WebApp-Launch-*` header the endpoint answers 403
/// and nginx refuses the request: a spoofed identity header, in any spelling, never reaches
/// the app. (The configuration also overwrites the known names with `proxy_set_header`.)
public struct AuthRequestEndpoint<Context: LaunchRequestContext>: RouterMiddleware {
    /// The path nginx's `auth_request` subrequest is proxied to.
    public static var path: String { "/auth" }

    let passAccessToken: Bool

    /// Creates the endpoint.
    /// - Parameter passAccessToken: Whether the access token is among the headers.
    public init(passAccessToken: Bool) {
        self.passAccessToken = passAccessToken
    }

    /// Answers `/auth`; passes every other request on.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path == Self.path else { return try await next(request, context) }
        guard request.method == .get || request.method == .head else {
            return Response(status: .methodNotAllowed, headers: [.allow: "GET, HEAD"])
        }
        if request.headers.contains(where: { IdentityHeaders.isIdentityField($0.name) }) {
            context.logger.notice("gate.spoofed_identity_header", metadata: ["code": "spoofed_header"])
            return Response(status: .forbidden)
        }
        let session = try context.requireLaunchSession()
        let fields = IdentityHeaders.fields(for: session, includeAccessToken: passAccessToken)
        return Response(status: .accepted, headers: fields)
    }
}
