import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import HummingbirdTesting
import Testing
import WebAppLaunchLauncher

/// The request side of `POST /v1/launches`: credentials, body and app id are checked before
/// the identity provider is asked, and the body may carry nothing but the app id.
@Suite("Launch requests: credentials, body, app")
struct LaunchRequestTests {
    struct BodyRow: Sendable, CustomTestStringConvertible {
        let name: String
        let body: String
        var testDescription: String { name }
    }

    static let badBodies: [BodyRow] = [
        BodyRow(name: "not JSON", body: "app=healthmagazin"),
        BodyRow(name: "empty", body: ""),
        BodyRow(name: "an array", body: #"["healthmagazin"]"#),
        BodyRow(name: "empty object", body: "{}"),
        BodyRow(name: "app not a string", body: #"{"app":42}"#),
        BodyRow(name: "names from the app are refused", body: #"{"app":"healthmagazin","firstname":"Mallory"}"#),
        BodyRow(name: "a KVNR from the app is refused", body: #"{"app":"healthmagazin","kvnumber":"A123456780"}"#),
        BodyRow(name: "app given twice", body: #"{"app":"bonusprogramm","app":"healthmagazin"}"#),
        BodyRow(name: "app given twice, once escaped", body: #"{"\u0061pp":"bonusprogramm","app":"healthmagazin"}"#),
        BodyRow(name: "app id outside the registry syntax", body: #"{"app":"../admin"}"#),
    ]

    @Test("A body other than exactly {\"app\": ID} is refused with 422 before the provider is asked", arguments: badBodies)
    func badBodyIs422(row: BodyRow) async throws {
        let provider = StubIdentityProvider.vouching()
        let app = LauncherFixtures.application(LauncherFixtures.service(provider: provider))
        try await app.test(.router) { client in
            try await client.postLaunch(token: "t0ken", body: row.body) { response in
                #expect(response.status == .unprocessableContent)
                #expect(LauncherFixtures.json(response.body)["error"] as? String == "invalid_request")
            }
        }
        #expect(provider.callCount == 0)
    }

    @Test("An unknown app is 404, before the provider is asked")
    func unknownAppIs404() async throws {
        let provider = StubIdentityProvider.vouching()
        let app = LauncherFixtures.application(LauncherFixtures.service(provider: provider))
        try await app.test(.router) { client in
            try await client.postLaunch(token: "t0ken", body: #"{"app":"nosuchapp"}"#) { response in
                #expect(response.status == .notFound)
                #expect(LauncherFixtures.json(response.body)["error"] as? String == "unknown_app")
            }
        }
        #expect(provider.callCount == 0)
    }

    @Test("No Authorization header is 401 with a bare Bearer challenge (RFC 6750, section 3.1)")
    func missingTokenIs401() async throws {
        let app = LauncherFixtures.application(LauncherFixtures.service(provider: StubIdentityProvider.vouching()))
        try await app.test(.router) { client in
            try await client.postLaunch(token: nil, body: #"{"app":"healthmagazin"}"#) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="webapp-launch""#)
            }
        }
    }

    @Test("A malformed bearer token is 401 invalid_token, before the provider is asked", arguments: ["a b", "tok\"en", "=abc", String(repeating: "a", count: 4097)])
    func malformedTokenIs401(token: String) async throws {
        let provider = StubIdentityProvider.vouching()
        let app = LauncherFixtures.application(LauncherFixtures.service(provider: provider))
        try await app.test(.router) { client in
            try await client.postLaunch(token: token, body: #"{"app":"healthmagazin"}"#) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == #"Bearer error="invalid_token""#)
            }
        }
        #expect(provider.callCount == 0)
    }

    @Test("A body over 1 KiB is 413, and a body not declared as JSON is 415")
    func oversizeAndWrongMediaType() async throws {
        let app = LauncherFixtures.application(LauncherFixtures.service(provider: StubIdentityProvider.vouching()))
        try await app.test(.router) { client in
            let big = #"{"app":"healthmagazin","pad":""# + String(repeating: "x", count: 2048) + #""}"#
            try await client.postLaunch(token: "t0ken", body: big) { response in
                #expect(response.status == .contentTooLarge)
            }
            var headers = LauncherFixtures.launchHeaders(token: "t0ken")
            headers[.contentType] = "text/plain"
            try await client.execute(uri: "/v1/launches", method: .post, headers: headers, body: LauncherFixtures.body(#"{"app":"healthmagazin"}"#)) { response in
                #expect(response.status == .unsupportedMediaType)
            }
        }
    }

    @Test("A required scope the token lacks is 403 with WWW-Authenticate: Bearer error=\"insufficient_scope\"")
    func missingScopeIs403() async throws {
        let provider = StubIdentityProvider.vouching(scopes: ["openid", "profile"])
        let service = LauncherFixtures.service(provider: provider, claims: ClaimMapping(requiredScopes: ["webapps:launch"]))
        try await LauncherFixtures.application(service).test(.router) { client in
            try await client.postLaunch(token: "t0ken", body: #"{"app":"healthmagazin"}"#) { response in
                #expect(response.status == .forbidden)
                #expect(response.headers[.wwwAuthenticate] == #"Bearer error="insufficient_scope""#)
                #expect(LauncherFixtures.json(response.body)["error"] as? String == "insufficient_scope")
            }
        }
    }

    @Test("A provider that reports no scopes cannot satisfy a required scope (fail closed)")
    func unknownScopesFailClosed() async throws {
        let service = LauncherFixtures.service(provider: StubIdentityProvider.vouching(scopes: nil), claims: ClaimMapping(requiredScopes: ["webapps:launch"]))
        await #expect(throws: LauncherError(.insufficientScope, "the token lacks a required scope")) {
            _ = try await service.launch(appID: "healthmagazin", accessToken: "t0ken")
        }
        let allowed = LauncherFixtures.service(provider: StubIdentityProvider.vouching(scopes: ["openid", "webapps:launch"]), claims: ClaimMapping(requiredScopes: ["webapps:launch"]))
        _ = try await allowed.launch(appID: "healthmagazin", accessToken: "t0ken")
    }

    @Test("An answer that names no subject is 403")
    func noSubjectIs403() async throws {
        let service = LauncherFixtures.service(provider: StubIdentityProvider(.failure(.noSubject)))
        do {
            _ = try await service.launch(appID: "healthmagazin", accessToken: "t0ken")
            Issue.record("minted without a subject")
        } catch {
            #expect(error.code == .missingClaims)
            #expect(error.httpStatus == 403)
        }
    }

    @Test("Repeated launches within the cache's age ask the provider once")
    func cacheSavesProviderCalls() async throws {
        let provider = StubIdentityProvider.vouching()
        let service = LauncherFixtures.service(provider: provider, cache: UserInfoCache(maximumAge: .seconds(30)))
        for _ in 0..<3 { _ = try await service.launch(appID: "healthmagazin", accessToken: "t0ken") }
        #expect(provider.callCount == 1)
        _ = try await service.launch(appID: "healthmagazin", accessToken: "another-t0ken")
        #expect(provider.callCount == 2)
    }
}
