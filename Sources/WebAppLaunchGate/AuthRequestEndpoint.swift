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
/// The endpoint decides with the whole request in view, as oauth2-proxy's does, and fails
/// closed:
/// - nginx sends the original method and target (``NginxConfiguration/originalMethod``,
///   ``NginxConfiguration/originalURI``); without them the answer is 403. A request that is a
///   launch by ``LaunchRequestKind`` (the configuration routes those to the gate before
///   `auth_request`; one that got here anyway) gets 401, so nginx sends it to the gate, which
///   exchanges or refuses it: a live session never lets a launch through to the app.
/// - nginx cannot remove header names by prefix, so a request with any `X-WebApp-Launch-*`
///   field in any spelling (folded: case, `_` for `-`) gets 403, as does one carrying more
///   session cookies of ours than a configuration printed by an earlier version removes
///   (``SessionCookieFamily/nginxPasses``): kept after an upgrade, it passes none on.
/// - The 202 carries the app's cookies (``NginxConfiguration/appCookies``): the request's
///   cookies without any session cookie of ours, removed by the reverse proxy's rule
///   (``SessionCookieFamily/removing(from:)``), which nginx sends to the app as its `Cookie`.
public struct AuthRequestEndpoint<Context: LaunchRequestContext>: RouterMiddleware {
    /// The path nginx's `auth_request` subrequest is proxied to.
    public static var path: String { "/auth" }

    let passAccessToken: Bool
    let appPaths: [String]

    /// Creates the endpoint.
    /// - Parameters:
    ///   - passAccessToken: Whether the access token is among the headers.
    ///   - appPaths: The app's launch paths (its public URL's path), for ``LaunchRequestKind``.
    public init(passAccessToken: Bool, appPaths: [String]) {
        self.passAccessToken = passAccessToken
        self.appPaths = appPaths
    }

    /// Answers `/auth`; passes every other request on.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path == Self.path else { return try await next(request, context) }
        // The verification middleware in front passes only requests with a live session.
        let session = try context.requireLaunchSession()
        return answer(method: request.method, headers: request.headers, session: session, logger: context.logger).response
    }

    /// The endpoint's decision for a request to `/auth` with a live session: the one both
    /// runners call (this middleware on Hummingbird's path, ``AuthRequestFastPathRoute`` on
    /// the event loop), so they cannot answer differently.
    /// - Parameters:
    ///   - method: The method of the request to `/auth`.
    ///   - headers: Its fields (nginx's original method and target among them).
    ///   - session: Its verified, live session.
    ///   - logger: Where a refusal is logged (its code, no personal data).
    /// - Returns: 202 with the identity headers and the app's cookies, or 401, 403 or 405.
    public func answer(method: HTTPRequest.Method, headers: HTTPFields, session: LaunchSession, logger: Logger) -> LaunchAnswer {
        guard method == .get || method == .head else {
            return LaunchAnswer(status: .methodNotAllowed, headerFields: [.allow: "GET, HEAD"])
        }
        let read = AuthRequestFields(headers)
        if read.hasIdentityField {
            logger.notice("gate.spoofed_identity_header", metadata: ["code": "spoofed_header"])
            return LaunchAnswer(status: .forbidden, headerFields: [:])
        }
        if read.sessionCookies > SessionCookieFamily.nginxPasses {
            logger.notice("gate.too_many_session_cookies", metadata: ["code": "cookie_family"])
            return LaunchAnswer(status: .forbidden, headerFields: [:])
        }
        guard let target = read.originalURI,
              let methodName = read.originalMethod,
              let originalMethod = HTTPRequest.Method(methodName)
        else {
            logger.notice("gate.auth_without_original_request", metadata: ["code": "no_original_uri"])
            return LaunchAnswer(status: .forbidden, headerFields: [:])
        }
        // The one decision, on the original request: anything that is or may be a launch (a
        // launch piece in the query, whatever the method; a form POST to the app's path, whose
        // body is not here) is the gate's, never the app's. The configuration sends those to the
        // gate before auth_request; one that got here anyway gets 401, so nginx sends it there.
        let kind = LaunchRequestKind(method: originalMethod, target: Substring(target), contentType: read.contentType, appPaths: appPaths)
        guard kind == .other else {
            logger.notice("gate.launch_at_auth", metadata: ["code": "launch_to_gate"])
            return LaunchAnswer(status: .unauthorized, headerFields: [:])
        }
        var fields = IdentityHeaders.fields(for: session, includeAccessToken: passAccessToken)
        if let cookies = read.appCookies {
            fields.append(HTTPField(name: NginxConfiguration.appCookies, value: cookies))
        }
        return LaunchAnswer(status: .accepted, headerFields: fields)
    }
}
