import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer

@Suite("Every response carries the security headers, whatever its status")
struct SecurityHeadersTests {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case page, redirect, rejection, missingSession, unavailable, notFound, health, metrics, wrongMethod
        var testDescription: String { rawValue }
    }

    static func response(_ kind: Kind) async throws -> TestResponse {
        let store: any ReplayStore = kind == .unavailable ? FailingReplayStore() : InMemoryReplayStore(capacity: 64)
        let token = Fixtures.token(for: Fixtures.magazin)
        return try await TestServer(replayStore: store).test { client in
            switch kind {
            case .page:
                let cookie = try await client.sessionCookie(for: token, at: Fixtures.magazin)
                return try await client.get("/apps/healthmagazin", cookie: cookie)
            case .redirect, .unavailable:
                return try await client.launch(token, at: Fixtures.magazin, via: .get)
            case .rejection:
                return try await client.launch(Fixtures.flippingBit(of: token, atByte: -1), at: Fixtures.magazin, via: .get)
            case .missingSession:
                return try await client.get("/apps/healthmagazin")
            case .notFound:
                return try await client.get("/no/such/page")
            case .health:
                return try await client.get("/healthz")
            case .metrics:
                return try await client.get("/metrics")
            case .wrongMethod:
                return try await client.execute(uri: "/apps/healthmagazin", method: .delete)
            }
        }
    }

    static let expectedStatus: [Kind: HTTPResponse.Status] = [
        .page: .ok, .redirect: .seeOther, .rejection: .unauthorized, .missingSession: .unauthorized,
        .unavailable: .serviceUnavailable, .notFound: .notFound, .health: .ok, .metrics: .notFound, .wrongMethod: .notFound,
    ]

    @Test("no-store, no-referrer, nosniff and a hash-only CSP are set", arguments: Kind.allCases)
    func headersArePresent(kind: Kind) async throws {
        let response = try await Self.response(kind)
        #expect(response.status == Self.expectedStatus[kind])
        #expect(response.headers[.cacheControl] == "no-store")
        #expect(response.headers[.referrerPolicy] == "no-referrer")
        #expect(response.headers[.contentTypeOptions] == "nosniff")
        #expect(response.headers[values: .contentSecurityPolicy].count == 1)
        let csp = try #require(response.headers[.contentSecurityPolicy])
        #expect(csp.contains("script-src 'sha256-"))
        #expect(csp.contains("default-src 'none'"))
        #expect(csp.contains("frame-ancestors 'none'"))
        #expect(csp.contains("base-uri 'none'"))
        #expect(!csp.contains("unsafe-inline"))
        #expect(!csp.contains("unsafe-eval"))
        #expect(!csp.contains("*"))
    }
}
