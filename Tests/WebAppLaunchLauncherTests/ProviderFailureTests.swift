import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import HummingbirdTesting
import Testing
import WebAppLaunchLauncher

/// Identity providers that fail in ways oidc-provider-mock does not: hanging, answering for
/// another issuer, answering 5xx, redirecting. Every one ends in 503 and nothing minted.
@Suite("Identity provider failures fail closed")
struct ProviderFailureTests {
    @Test("A provider that accepts the connection and never answers is 503 within the timeout")
    func hangingProviderTimesOut() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        // The client alone would wait a minute for the silent provider: only the provider's
        // own 500 ms deadline can end the request well before that. The bound below is loose
        // because the whole suite shares two cores; it still fails if the deadline is ignored.
        let client = IdentityProviderHTTPClient.make(connectTimeout: .seconds(1), readTimeout: .seconds(60))
        let provider = OpenIDUserInfoProvider(issuer: URL(string: "http://127.0.0.1:\(listener.port)")!, httpClient: client, timeout: .milliseconds(500))
        let service = LauncherFixtures.service(provider: provider)
        let started = ContinuousClock.now
        do {
            _ = try await service.launch(appID: "healthmagazin", accessToken: "t0ken")
            Issue.record("minted without the provider")
        } catch {
            #expect(error.code == .providerUnavailable)
            #expect(error.httpStatus == 503)
        }
        #expect(started.duration(to: .now) < .seconds(30))
        try await client.shutdown()
    }

    /// A fake provider whose discovery and userinfo a test scripts.
    static func fakeProvider(
        issuer: @escaping @Sendable (Int) -> String = { "http://127.0.0.1:\($0)" },
        userinfoStatus: HTTPResponse.Status = .ok,
        userinfoBody: String = #"{"sub":"s","given_name":"A","family_name":"B","kvnr":"A123456780"}"#,
        redirectUserinfo: Bool = false
    ) -> some ApplicationProtocol {
        let router = Router()
        router.get(".well-known/openid-configuration") { request, _ -> Response in
            let host = request.head.authority ?? "127.0.0.1"
            let port = Int(host.split(separator: ":").last ?? "") ?? 0
            let body = #"{"issuer":"\#(issuer(port))","userinfo_endpoint":"http://127.0.0.1:\#(port)/userinfo"}"#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        router.get("userinfo") { _, _ -> Response in
            if redirectUserinfo {
                return Response(status: .found, headers: [.location: "http://127.0.0.1:1/steal"])
            }
            return Response(status: userinfoStatus, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: userinfoBody)))
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    enum Scenario: String, CaseIterable, Sendable {
        case otherIssuer = "discovery names another issuer"
        case serverError = "userinfo answers 500"
        case redirect = "userinfo redirects"
        case notJSON = "userinfo answers a body that is not a JSON object"
    }

    @Test("A provider that misbehaves is 503, never a launch", arguments: Scenario.allCases)
    func misbehavingProvider(scenario: Scenario) async throws {
        let fake: any ApplicationProtocol = switch scenario {
        case .otherIssuer: Self.fakeProvider(issuer: { _ in "https://evil.example" })
        case .serverError: Self.fakeProvider(userinfoStatus: .internalServerError)
        case .redirect: Self.fakeProvider(redirectUserinfo: true)
        case .notJSON: Self.fakeProvider(userinfoBody: "<html>maintenance</html>")
        }
        try await fake.test(.live) { fakeClient in
            let port = try #require(fakeClient.port)
            let client = IdentityProviderHTTPClient.make()
            let provider = OpenIDUserInfoProvider(issuer: URL(string: "http://127.0.0.1:\(port)")!, httpClient: client)
            let service = LauncherFixtures.service(provider: provider)
            do {
                _ = try await service.launch(appID: "healthmagazin", accessToken: "t0ken")
                Issue.record("minted although \(scenario.rawValue)")
            } catch let error as LauncherError {
                #expect(error.code == .providerUnavailable)
            }
            try await client.shutdown()
        }
    }

    @Test("Any 4xx from userinfo is a refused token (401), not an outage")
    func userinfo4xxIsInvalidToken() async throws {
        try await Self.fakeProvider(userinfoStatus: .forbidden).test(.live) { fakeClient in
            let port = try #require(fakeClient.port)
            let client = IdentityProviderHTTPClient.make()
            let provider = OpenIDUserInfoProvider(issuer: URL(string: "http://127.0.0.1:\(port)")!, httpClient: client)
            await #expect(throws: IdentityProviderError.invalidToken) {
                _ = try await provider.identity(forAccessToken: "t0ken")
            }
            try await client.shutdown()
        }
    }

    @Test("Issuer URLs: https anywhere, http only on a loopback host decided from the parsed address (issue 29)", arguments: [
        ("https://login.example", true), ("http://127.0.0.1:9400", true), ("http://localhost:9400", true), ("http://[::1]:9400/realm", true),
        ("http://127.255.0.8/", true),
        ("http://login.example", false), ("ftp://login.example", false), ("https://u:p@login.example", false),
        ("http://127.evil.example/", false), ("http://127.0.0.1.nip.io/", false), ("http://localhost.evil.example/", false),
        ("http://127.0.0.08/", false), ("http://127.1/", false), ("http://2130706433/", false),
    ])
    func issuerRule(text: String, acceptable: Bool) {
        #expect(IssuerURL.isAcceptable(URL(string: text)!) == acceptable)
    }
}
