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
        do throws(LauncherError) {
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
        userinfoHeaders: HTTPFields = [:],
        redirectUserinfo: Bool = false,
        dripUserinfo: Bool = false
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
            if dripUserinfo {
                // A head at once, then a byte every 200 ms for two minutes: each byte comes
                // well within any read timeout, only a deadline on the whole exchange ends it.
                return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody { writer in
                    for _ in 0..<600 {
                        try await writer.write(ByteBuffer(string: " "))
                        try await Task.sleep(for: .milliseconds(200))
                    }
                    try await writer.finish(nil)
                })
            }
            var headers: HTTPFields = [.contentType: "application/json"]
            headers.append(contentsOf: userinfoHeaders)
            return Response(status: userinfoStatus, headers: headers, body: .init(byteBuffer: ByteBuffer(string: userinfoBody)))
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

    /// One row of the userinfo answer table: what the provider answers, what the launcher does.
    struct AnswerRow: Sendable, CustomTestStringConvertible {
        let status: Int
        let body: String
        let headers: [(String, String)]
        let expectedCode: String
        let expectedRetryAfter: String?
        var testDescription: String { "\(status) \(headers.map { "\($0.0): \($0.1)" }) \(body) → \(expectedCode)" }
    }

    static let answerTable: [AnswerRow] = [
        AnswerRow(status: 401, body: "{}", headers: [], expectedCode: "invalid_token", expectedRetryAfter: nil),
        AnswerRow(status: 401, body: "{}", headers: [("WWW-Authenticate", #"Bearer error="invalid_token""#)], expectedCode: "invalid_token", expectedRetryAfter: nil),
        AnswerRow(status: 400, body: "{}", headers: [("WWW-Authenticate", #"Bearer realm="x", error="invalid_token""#)], expectedCode: "invalid_token", expectedRetryAfter: nil),
        AnswerRow(status: 403, body: #"{"error":"invalid_token"}"#, headers: [], expectedCode: "invalid_token", expectedRetryAfter: nil),
        AnswerRow(status: 400, body: #"{"error":"access_denied"}"#, headers: [], expectedCode: "provider_unavailable", expectedRetryAfter: nil),
        AnswerRow(status: 403, body: #"{"error":"insufficient_scope"}"#, headers: [("WWW-Authenticate", #"Bearer error="insufficient_scope""#)], expectedCode: "provider_unavailable", expectedRetryAfter: nil),
        AnswerRow(status: 404, body: "{}", headers: [], expectedCode: "provider_unavailable", expectedRetryAfter: nil),
        AnswerRow(status: 408, body: "{}", headers: [("Retry-After", "3")], expectedCode: "provider_unavailable", expectedRetryAfter: "3"),
        AnswerRow(status: 429, body: "{}", headers: [("Retry-After", "17")], expectedCode: "provider_unavailable", expectedRetryAfter: "17"),
        AnswerRow(status: 503, body: "{}", headers: [("Retry-After", "120")], expectedCode: "provider_unavailable", expectedRetryAfter: "120"),
        AnswerRow(status: 503, body: "{}", headers: [("Retry-After", "Fri, 31 Dec 2027 23:59:59 GMT")], expectedCode: "provider_unavailable", expectedRetryAfter: nil),
        AnswerRow(status: 500, body: "{}", headers: [], expectedCode: "provider_unavailable", expectedRetryAfter: nil),
    ]

    @Test("Userinfo answers are read by meaning: only 401 or invalid_token refuse a token; 408, 429 and 5xx pass Retry-After on", arguments: answerTable)
    func userinfoAnswerTable(row: AnswerRow) async throws {
        var headers = HTTPFields()
        for (name, value) in row.headers { headers.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        let fake = Self.fakeProvider(userinfoStatus: HTTPResponse.Status(code: row.status), userinfoBody: row.body, userinfoHeaders: headers)
        try await fake.test(.live) { fakeClient in
            let port = try #require(fakeClient.port)
            let client = IdentityProviderHTTPClient.make()
            let provider = OpenIDUserInfoProvider(issuer: URL(string: "http://127.0.0.1:\(port)")!, httpClient: client)
            let service = LauncherFixtures.service(provider: provider)
            try await LauncherFixtures.application(service).test(.router) { http in
                try await http.postLaunch(token: "t0ken", body: #"{"app":"healthmagazin"}"#) { response in
                    #expect(LauncherFixtures.json(response.body)["error"] as? String == row.expectedCode)
                    #expect(response.status.code == (row.expectedCode == "invalid_token" ? 401 : 503))
                    #expect(response.headers[.retryAfter] == row.expectedRetryAfter)
                }
            }
            try await client.shutdown()
        }
    }

    @Test("A provider that sends its answer a byte at a time is cut off at the provider timeout (503)")
    func slowBodyIsBounded() async throws {
        try await Self.fakeProvider(dripUserinfo: true).test(.live) { fakeClient in
            let port = try #require(fakeClient.port)
            let client = IdentityProviderHTTPClient.make(readTimeout: .seconds(60))
            let provider = OpenIDUserInfoProvider(issuer: URL(string: "http://127.0.0.1:\(port)")!, httpClient: client, timeout: .seconds(1))
            _ = try await provider.configuration()
            let started = ContinuousClock.now
            do throws(LauncherError) {
                _ = try await LauncherFixtures.service(provider: provider).launch(appID: "healthmagazin", accessToken: "t0ken")
                Issue.record("minted from a body that never ended")
            } catch {
                #expect(error.code == .providerUnavailable)
            }
            // The drip lasts two minutes; the bound is loose for a busy machine.
            #expect(started.duration(to: .now) < .seconds(10))
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
