import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WebAppLaunchReload

/// The launcher's HTTP API over a ``LauncherService``:
///
/// - `GET /v1/catalogue` → 200 `{"apps": [cards]}` with `ETag` and `Cache-Control`, or 304
///   when `If-None-Match` matches;
/// - `POST /v1/launches` with `Authorization: Bearer …` and `{"app": "ID"}` → 201
///   `{"url", "expires_at"}`, or an error `{"error": code}` with the status of
///   ``LauncherError/httpStatus`` (and `WWW-Authenticate` / `Retry-After` where due);
/// - `GET /healthz` → `ok`;
/// - `GET /readyz` → 200 `ready` when the identity provider can confirm tokens (its discovery
///   document or key set loaded, ``IdentityProvider/readiness()``) and shutdown has not begun
///   (``ReadinessSwitch``), else 503 `not ready`.
///
/// This is the edge: the only place launcher errors become HTTP.
public enum LauncherRouter {
    /// How long clients may reuse the catalogue before revalidating.
    public static let defaultCatalogueMaxAge = 300

    /// Builds the router.
    /// - Parameters:
    ///   - service: The launcher.
    ///   - catalogueMaxAge: `Cache-Control: max-age` of the catalogue, in seconds.
    ///   - clock: The time launches are minted at (injectable for tests).
    ///   - readiness: The process's shutdown switch (`/readyz` is 503 once it is off).
    /// - Returns: A router for any Hummingbird application.
    public static func make(
        service: LauncherService,
        catalogueMaxAge: Int = defaultCatalogueMaxAge,
        clock: @escaping @Sendable () -> Date = { Date() },
        readiness: ReadinessSwitch = ReadinessSwitch()
    ) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.get("healthz") { _, _ in
            jsonResponse(.ok, Data("ok".utf8), contentType: "text/plain; charset=utf-8")
        }
        router.get("readyz") { _, _ in
            await readinessResponse(service: service, readiness: readiness)
        }
        addRoutes(to: router, service: service, catalogueMaxAge: catalogueMaxAge, clock: clock)
        return router
    }

    /// Adds `GET /v1/catalogue` and `POST /v1/launches` to another application's router (the
    /// development server mounts the launcher beside its console this way).
    /// - Parameters:
    ///   - router: The router, of any request context.
    ///   - service: The launcher.
    ///   - catalogueMaxAge: `Cache-Control: max-age` of the catalogue, in seconds.
    ///   - clock: The time launches are minted at (injectable for tests).
    public static func addRoutes<Context: RequestContext>(
        to router: Router<Context>,
        service: LauncherService,
        catalogueMaxAge: Int = defaultCatalogueMaxAge,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        router.get("v1/catalogue") { request, _ in
            let catalogue = service.catalogue
            var headers = HTTPFields()
            headers[.eTag] = catalogue.etag
            headers[.cacheControl] = "public, max-age=\(catalogueMaxAge)"
            headers[.xContentTypeOptions] = "nosniff"
            if catalogue.isMatched(byIfNoneMatch: request.headers[values: .ifNoneMatch]) {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: catalogue.body)))
        }
        router.post("v1/launches") { request, _ in
            do {
                let launch = try await launch(request, service: service, now: clock())
                let body = try JSONSerialization.data(
                    withJSONObject: ["url": launch.url, "expires_at": iso8601(launch.expiresAt)],
                    options: [.sortedKeys, .withoutEscapingSlashes]
                )
                return jsonResponse(.created, body)
            } catch let error as LauncherError {
                return errorResponse(error)
            } catch {
                return errorResponse(LauncherError(.mintFailed, "unexpected failure"))
            }
        }
    }

    private static func readinessResponse(service: LauncherService, readiness: ReadinessSwitch) async -> Response {
        var ready = false
        if readiness.isAcceptingWork {
            ready = await service.identityProvider.readiness()
        }
        return jsonResponse(ready ? .ok : .serviceUnavailable, Data((ready ? "ready\n" : "not ready\n").utf8), contentType: "text/plain; charset=utf-8")
    }

    private static func launch(_ request: Request, service: LauncherService, now: Date) async throws -> MintedLaunch {
        let token = try BearerCredentials.token(in: request.headers)
        guard let contentType = request.headers[.contentType],
              contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
        else {
            throw LauncherError(.unsupportedMediaType, "the body must be application/json")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: LaunchRequestBody.maximumBytes)
        } catch {
            throw LauncherError(.requestTooLarge, "the body is larger than \(LaunchRequestBody.maximumBytes) bytes")
        }
        let appID = try LaunchRequestBody.appID(from: Data(buffer.readableBytesView))
        return try await service.launch(appID: appID, accessToken: token, now: now)
    }

    /// The response for an error: `{"error": code}`, never the reason.
    static func errorResponse(_ error: LauncherError) -> Response {
        let body = Data(#"{"error":"\#(error.code.rawValue)"}"#.utf8)
        var response = jsonResponse(HTTPResponse.Status(code: error.httpStatus), body)
        if let challenge = error.bearerChallenge { response.headers[.wwwAuthenticate] = challenge }
        if let seconds = error.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
        return response
    }

    private static func jsonResponse(_ status: HTTPResponse.Status, _ body: Data, contentType: String = "application/json") -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    private static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }
}
