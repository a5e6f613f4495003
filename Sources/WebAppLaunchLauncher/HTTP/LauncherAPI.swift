import Foundation
import OpenAPIRuntime

/// The launcher's side of `openapi.yaml`: the generated `APIProtocol` over a
/// ``LauncherService``. This is where launcher errors become the document's responses.
///
/// ``LaunchRequestGate`` runs first and has already answered what a generated handler cannot
/// (401 without a well-formed bearer token, 413, 415, 422); what is left is the catalogue and
/// the service's verdict.
struct LauncherAPI: APIProtocol {
    /// The encoding of every JSON body: compact, sorted keys, unescaped slashes. The catalogue's
    /// ETag is taken over bytes encoded with the same settings.
    static let configuration = Configuration(jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])

    /// An encoder with ``configuration``'s settings, for bodies written outside the generated
    /// layer (the catalogue's ETag, the gate's refusals).
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    let service: LauncherService
    let catalogueMaxAge: Int
    let clock: @Sendable () -> Date

    func getCatalogue(_ input: Operations.GetCatalogue.Input) async throws -> Operations.GetCatalogue.Output {
        let catalogue = service.catalogue
        let cacheControl = "public, max-age=\(catalogueMaxAge)"
        if let ifNoneMatch = input.headers.ifNoneMatch, catalogue.isMatched(byIfNoneMatch: [ifNoneMatch]) {
            return .notModified(.init(headers: .init(eTag: catalogue.etag, cacheControl: cacheControl)))
        }
        return .ok(.init(headers: .init(eTag: catalogue.etag, cacheControl: cacheControl), body: .json(catalogue.document)))
    }

    func createLaunch(_ input: Operations.CreateLaunch.Input) async throws -> Operations.CreateLaunch.Output {
        guard let token = BearerToken.current else {
            return Self.refusal(LauncherError(.missingToken, "no bearer token reached the handler"))
        }
        let appID: String
        switch input.body {
        case .json(let request): appID = request.app
        }
        do {
            let launch = try await service.launch(appID: appID, accessToken: token, now: clock())
            return .created(.init(headers: .init(cacheControl: "no-store"), body: .json(.init(url: launch.url, expiresAt: launch.expiresAt))))
        } catch {
            return Self.refusal(error)
        }
    }

    /// The document's response for a refusal: its status, `{"error": code}`, and the
    /// `WWW-Authenticate` / `Retry-After` the code calls for.
    static func refusal(_ error: LauncherError) -> Operations.CreateLaunch.Output {
        let body = Components.Schemas._Error(error: error.code.rawValue)
        switch error.httpStatus {
        case 401:
            return .unauthorized(.init(headers: .init(wwwAuthenticate: error.bearerChallenge ?? #"Bearer error="invalid_token""#, cacheControl: "no-store"), body: .json(body)))
        case 403:
            return .forbidden(.init(headers: .init(wwwAuthenticate: error.bearerChallenge, cacheControl: "no-store"), body: .json(body)))
        case 404:
            return .notFound(.init(headers: .init(cacheControl: "no-store"), body: .json(body)))
        case 413:
            return .contentTooLarge(.init(headers: .init(cacheControl: "no-store"), body: .json(body)))
        case 415:
            return .unsupportedMediaType(.init(headers: .init(cacheControl: "no-store"), body: .json(body)))
        case 422:
            return .unprocessableContent(.init(headers: .init(cacheControl: "no-store"), body: .json(body)))
        case 429:
            return .tooManyRequests(.init(headers: .init(retryAfter: error.retryAfterSeconds ?? 60, cacheControl: "no-store"), body: .json(body)))
        case 503:
            return .serviceUnavailable(.init(headers: .init(retryAfter: error.retryAfterSeconds, cacheControl: "no-store"), body: .json(body)))
        default:
            return .internalServerError(.init(headers: .init(cacheControl: "no-store"), body: .json(body)))
        }
    }
}
