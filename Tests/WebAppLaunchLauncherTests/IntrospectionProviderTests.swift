import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import HummingbirdTesting
import Synchronization
import Testing
import WebAppLaunchLauncher

/// RFC 7662 introspection, the second way to confirm a token (oidc-provider-mock has no
/// introspection endpoint, so a scripted one on loopback stands in).
@Suite("Introspection provider")
struct IntrospectionProviderTests {
    /// What the scripted endpoint saw: the Authorization header and the form.
    final class Seen: Sendable {
        let values = Mutex<(authorization: String?, form: String?)>((nil, nil))
    }

    static func endpoint(status: HTTPResponse.Status = .ok, answer: String, seen: Seen) -> some ApplicationProtocol {
        let router = Router()
        router.post("introspect") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 4096)
            seen.values.withLock { $0 = (request.headers[.authorization], String(buffer: body)) }
            return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: answer)))
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    static func provider(port: Int, client: HTTPClient, now: Date = Date()) -> IntrospectionProvider {
        IntrospectionProvider(
            endpoint: URL(string: "http://127.0.0.1:\(port)/introspect")!,
            clientID: "launcher",
            clientSecret: "s3cret:with&odd chars",
            policy: NativeAppTokenPolicy(clientIDs: ["native-ios", "native-android"], audience: "https://launcher.example"),
            httpClient: client,
            now: { now }
        )
    }

    @Test("An active token yields its subject, claims, scopes and expiry; the launcher authenticates with Basic")
    func active() async throws {
        let seen = Seen()
        let exp = Int(Date().timeIntervalSince1970) + 600
        let answer = #"{"active":true,"token_type":"Bearer","client_id":"native-ios","aud":["https://launcher.example","other"],"sub":"u1","scope":"openid webapps:launch","exp":\#(exp),"given_name":"Ada","family_name":"Lovelace","kvnr":"A123456780"}"#
        try await Self.endpoint(answer: answer, seen: seen).test(.live) { fake in
            let client = IdentityProviderHTTPClient.make()
            let identity = try await Self.provider(port: try #require(fake.port), client: client).identity(forAccessToken: "tok+en/=")
            #expect(identity.subject == "u1")
            #expect(identity.scopes == ["openid", "webapps:launch"])
            #expect(identity.expiresAt == Date(timeIntervalSince1970: TimeInterval(exp)))
            #expect(identity.claims["kvnr"] == "A123456780")
            let (authorization, form) = seen.values.withLock { $0 }
            let expected = "Basic " + Data("launcher:s3cret%3Awith%26odd+chars".utf8).base64EncodedString()
            #expect(authorization == expected)
            #expect(form == "token=tok%2Ben%2F%3D&token_type_hint=access_token")
            try await client.shutdown()
        }
    }

    static let good = #""token_type":"Bearer","client_id":"native-android","sub":"u1","exp":99999999999"#

    @Test("An inactive, expired, misissued or non-access token is refused", arguments: [
        #"{"active":false}"#, #"{"active":"true",\#(IntrospectionProviderTests.good)}"#,
        #"{"active":true,"token_type":"Bearer","client_id":"native-android","sub":"u1","exp":1000}"#,
        #"{"active":true,"token_type":"Bearer","client_id":"native-android","sub":"u1"}"#,
        #"{"active":true,"token_type":"refresh_token","client_id":"native-android","sub":"u1","exp":99999999999}"#,
        #"{"active":true,"client_id":"native-android","sub":"u1","exp":99999999999}"#,
        #"{"active":true,"token_type":"Bearer","client_id":"other-client","sub":"u1","exp":99999999999}"#,
        #"{"active":true,"token_type":"Bearer","sub":"u1","exp":99999999999}"#,
        #"{"active":true,\#(IntrospectionProviderTests.good),"aud":"https://partner.example"}"#,
        #"{"active":true,\#(IntrospectionProviderTests.good),"aud":["https://partner.example"]}"#,
    ])
    func inactive(answer: String) async throws {
        try await Self.endpoint(answer: answer, seen: Seen()).test(.live) { fake in
            let client = IdentityProviderHTTPClient.make()
            await #expect(throws: IdentityProviderError.invalidToken) {
                _ = try await Self.provider(port: try #require(fake.port), client: client).identity(forAccessToken: "t")
            }
            try await client.shutdown()
        }
    }

    @Test("Refused client credentials (401 from the endpoint) are an outage, not the user's fault")
    func refusedCredentials() async throws {
        try await Self.endpoint(status: .unauthorized, answer: #"{"error":"invalid_client"}"#, seen: Seen()).test(.live) { fake in
            let client = IdentityProviderHTTPClient.make()
            do {
                _ = try await Self.provider(port: try #require(fake.port), client: client).identity(forAccessToken: "t")
                Issue.record("no error")
            } catch let error as IdentityProviderError {
                guard case .unavailable = error else { Issue.record("expected unavailable, got \(error)"); return }
            }
            try await client.shutdown()
        }
    }

    @Test("Through the launcher, a required scope from introspection admits the launch, its absence is 403")
    func requiredScope() async throws {
        let answer = #"{"active":true,\#(Self.good),"scope":"openid","given_name":"Ada","family_name":"Lovelace","kvnr":"A123456780"}"#
        try await Self.endpoint(answer: answer, seen: Seen()).test(.live) { fake in
            let client = IdentityProviderHTTPClient.make()
            let provider = Self.provider(port: try #require(fake.port), client: client)
            let open = LauncherFixtures.service(provider: provider, claims: ClaimMapping(requiredScopes: ["openid"]))
            _ = try await open.launch(appID: "healthmagazin", accessToken: "t")
            let strict = LauncherFixtures.service(provider: provider, claims: ClaimMapping(requiredScopes: ["webapps:launch"]))
            do {
                _ = try await strict.launch(appID: "healthmagazin", accessToken: "t")
                Issue.record("minted without the scope")
            } catch let error as LauncherError {
                #expect(error.code == .insufficientScope)
            }
            try await client.shutdown()
        }
    }
}
