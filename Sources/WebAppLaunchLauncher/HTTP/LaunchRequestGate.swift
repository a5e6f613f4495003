import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The launcher's edge, in front of the routes generated from `openapi.yaml`: what a generated
/// server cannot say, kept as Hummingbird middleware so no behaviour is lost.
///
/// For `POST /v1/launches`, in this order (each before anything is read further, and before
/// the identity provider is asked): the bearer token (401 with its `WWW-Authenticate`
/// form), the media type (415), the body size (413, read at most 1 KiB + 1), and the body's
/// exact shape (422: `{"app": "ID"}` only, no escapes, no repeated member, which a JSON
/// decoder would let through last-wins). The token reaches ``LauncherAPI`` through
/// ``BearerToken/current`` and nowhere else; the body is handed on already collected, so
/// the generated decoder only ever sees a body that passed.
///
/// For every launcher route: `Accept` is dropped (the launcher answers JSON only), the
/// documented headers are written as HTTP has them (the generated layer URI-encodes them),
/// `X-Content-Type-Options: nosniff`, `Content-Type:
/// application/json` without the `charset` parameter the generated serializer adds (RFC 8259
/// defines none), and any error the generated layer throws becomes `500 {"error":
/// "mint_failed"}` rather than Hummingbird's bodiless 500. A launch request refused here is
/// counted in ``LauncherMetrics`` by its code, as the service's own refusals are.
struct LaunchRequestGate<Context: RequestContext>: RouterMiddleware {
    /// Where a launch request refused here is counted (by code, as the service counts its
    /// own refusals), or `nil`: a refusal at the edge is as much a refused launch as one the
    /// service makes, and a client sending malformed requests must show in the counters.
    let metrics: LauncherMetrics?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        // The launcher answers JSON whatever `Accept` says, as it always has; the generated
        // layer would refuse a request whose `Accept` names no JSON (an error, not a status).
        var head = request.head
        head.headerFields[.accept] = nil
        let request = Request(head: head, body: request.body)
        do {
            if request.method == .post && request.uri.path == "/v1/launches" {
                let admitted: Admitted
                do {
                    admitted = try await admit(request)
                } catch {
                    metrics?.refused(error.code)
                    throw error
                }
                response = try await BearerToken.$current.withValue(admitted.token) {
                    try await next(admitted.request, context)
                }
            } else {
                response = try await next(request, context)
            }
        } catch let error as LauncherError {
            response = LauncherErrorResponse.make(error)
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            context.logger.error("launcher.generated_layer_failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            // Not counted: a body that passed the edge is always decoded, so the generated layer
            // fails only after the service answered, which counted the launch already.
            response = LauncherErrorResponse.make(LauncherError(.mintFailed, "unexpected failure"))
        }
        // swift-openapi-runtime writes header values URI-encoded (OpenAPI's `simple` style):
        // `"…"` as `%22…%22`. The document's headers are HTTP's own syntax (RFC 9110), and
        // the values the launcher sets hold no `%`, so they are decoded back exactly.
        for name in Self.documentedHeaders {
            if let value = response.headers[name], value.contains("%"), let decoded = value.removingPercentEncoding {
                response.headers[name] = decoded
            }
        }
        if let contentType = response.headers[.contentType], contentType.hasPrefix("application/json;") {
            response.headers[.contentType] = "application/json"
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }

    /// The response headers `openapi.yaml` declares.
    private static var documentedHeaders: [HTTPField.Name] { [.eTag, .cacheControl, .wwwAuthenticate, .retryAfter] }

    /// A launch request that passed the edge: its token, and the request with its body
    /// already collected.
    private struct Admitted {
        let request: Request
        let token: String
    }

    /// The edge's checks of `POST /v1/launches`, in the documented order.
    private func admit(_ request: Request) async throws(LauncherError) -> Admitted {
        let token = try BearerCredentials.token(in: request.headers)
        guard let contentType = request.headers[.contentType],
              contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
        else {
            throw LauncherError(.unsupportedMediaType, "the body must be application/json")
        }
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: LaunchRequestBody.maximumBytes)
        } catch {
            throw LauncherError(.requestTooLarge, "the body is larger than \(LaunchRequestBody.maximumBytes) bytes")
        }
        _ = try LaunchRequestBody.appID(from: Data(buffer.readableBytesView))
        // The generated decoder matches `application/json` with parameters as the guard above
        // does; a body that passed is decoded, never refused, there.
        return Admitted(request: request, token: token)
    }
}

/// The bearer token of the launch request being handled, set by ``LaunchRequestGate`` once
/// it is well formed: the generated handler's input carries no `Authorization` (OpenAPI
/// leaves it to the security scheme).
enum BearerToken {
    @TaskLocal static var current: String?
}
