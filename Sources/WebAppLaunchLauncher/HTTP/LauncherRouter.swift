import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OpenAPIHummingbird
import OpenAPIRuntime
import WebAppLaunchReload

/// The launcher's HTTP API over a ``LauncherService``, as `openapi.yaml` (the repository
/// root) describes it:
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
/// The routes are generated from the document (swift-openapi-generator, served through
/// swift-openapi-hummingbird); ``LaunchRequestGate`` stands in front of them for what a
/// generated server cannot say.
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
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; charset=utf-8"
            headers[.cacheControl] = "no-store"
            headers[.xContentTypeOptions] = "nosniff"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "ok")))
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
        // A group of its own: the gate runs for the launcher's routes only, never for the
        // console's beside them.
        let group = router.group().add(middleware: LaunchRequestGate<Context>(metrics: service.metrics))
        let api = LauncherAPI(service: service, catalogueMaxAge: catalogueMaxAge, clock: clock)
        do {
            try api.registerHandlers(on: group, configuration: LauncherAPI.configuration)
        } catch {
            // Registration fails only for a server URL with no path; the default is `/`.
            preconditionFailure("the launcher's routes could not be registered: \(error)")
        }
        addMethodNotAllowed(to: router, path: "v1/catalogue", allow: .get)
        addMethodNotAllowed(to: router, path: "v1/launches", allow: .post)
    }

    /// The methods the document does not list for a path: 405 with `Allow` (RFC 9110 section
    /// 15.5.6), not 404, since the resource exists.
    private static func addMethodNotAllowed<Context: RequestContext>(to router: Router<Context>, path: RouterPath, allow: HTTPRequest.Method) {
        // QUERY: the safe method with a body (draft-ietf-httpbis-safe-method-w-body), which
        // clients and fuzzers already send.
        let query = HTTPRequest.Method("QUERY").map { [$0] } ?? []
        let others = ([.get, .post, .put, .delete, .patch, .options, .trace] + query).filter { $0 != allow }
        for method in others {
            router.on(path, method: method) { _, _ in
                var headers = HTTPFields()
                headers[.allow] = allow.rawValue
                headers[.cacheControl] = "no-store"
                return Response(status: .methodNotAllowed, headers: headers)
            }
        }
    }

    /// `/readyz`: 200 only while shutdown has not begun and the identity provider can confirm
    /// tokens (its discovery document or key set is loaded).
    private static func readinessResponse(service: LauncherService, readiness: ReadinessSwitch) async -> Response {
        var ready = false
        if readiness.isAcceptingWork {
            ready = await service.identityProvider.readiness()
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(
            status: ready ? .ok : .serviceUnavailable, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: ready ? "ready\n" : "not ready\n"))
        )
    }
}
