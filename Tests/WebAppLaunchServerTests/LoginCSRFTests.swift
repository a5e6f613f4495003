import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport

/// Review finding 5: another site must not be able to swap a user's live session for the
/// attacker's own account by posting the attacker's unused launch.
@Suite("A cross-site launch cannot replace a live session of a different user")
struct LoginCSRFTests {
    static let attacker = LaunchUser(accessToken: "attacker-token", firstName: "Mallory", lastName: "Angreifer", kvnumber: "B551029382")

    /// Headers of a cross-site form post as a browser sends it.
    enum Context: String, CaseIterable, Sendable {
        case fetchMetadataCrossSite, foreignOrigin, fetchMetadataNone, sameOrigin, noHeaders

        var headers: HTTPFields {
            var fields = HTTPFields()
            switch self {
            case .fetchMetadataCrossSite: fields[HTTPField.Name("Sec-Fetch-Site")!] = "cross-site"
            case .foreignOrigin: fields[HTTPField.Name("Origin")!] = "https://evil.example"
            case .fetchMetadataNone: fields[HTTPField.Name("Sec-Fetch-Site")!] = "none"
            case .sameOrigin: fields[HTTPField.Name("Origin")!] = "http://127.0.0.1:8080"
            case .noHeaders: break
            }
            return fields
        }

        var isCrossSite: Bool { self == .fetchMetadataCrossSite || self == .foreignOrigin }
    }

    static func post(_ token: String, cookie: String?, context: Context, client: some TestClientProtocol) async throws -> TestResponse {
        var headers = requestHeaders(cookie: cookie, json: true)
        headers[.contentType] = "application/x-www-form-urlencoded"
        for field in context.headers { headers[field.name] = field.value }
        return try await client.execute(uri: "/apps/healthmagazin", method: .post, headers: headers, body: ByteBuffer(string: "launch=" + token))
    }

    @Test("with a live session of another user, a cross-site launch is refused and the session kept; a same-site one replaces it", arguments: Context.allCases)
    func replacingAnotherUsersSession(context: Context) async throws {
        let victim = Fixtures.token(for: Fixtures.magazin)
        let attacker = Fixtures.token(for: Fixtures.magazin, user: Self.attacker)
        let server = try TestServer()
        try await server.test { client async throws in
            let cookie = try await client.sessionCookie(for: victim, at: Fixtures.magazin)
            let response = try await Self.post(attacker, cookie: cookie, context: context, client: client)
            if context.isCrossSite {
                #expect(response.status == .unauthorized)
                #expect(response.setCookies.isEmpty, "the victim's session stays")
                let page = try await client.get("/apps/healthmagazin", cookie: cookie)
                #expect(page.text.contains(Fixtures.user.lastName))
                // The refused launch was not claimed: its owner can still use it.
                #expect(try await Self.post(attacker, cookie: nil, context: .fetchMetadataNone, client: client).status == .seeOther)
            } else {
                #expect(response.status == .seeOther)
            }
        }
        #expect(server.logs.lines("launch.rejected", where: "code", is: "session_conflict").count == (context.isCrossSite ? 1 : 0))
    }

    @Test("a cross-site launch is accepted when there is no live session, or the session is the same user's", arguments: [true, false])
    func crossSiteWithoutConflict(hasSameUserSession: Bool) async throws {
        try await TestServer().test { client async throws in
            let cookie = hasSameUserSession ? try await client.sessionCookie(for: Fixtures.token(for: Fixtures.magazin), at: Fixtures.magazin) : nil
            let response = try await Self.post(Fixtures.token(for: Fixtures.magazin), cookie: cookie, context: .fetchMetadataCrossSite, client: client)
            #expect(response.status == .seeOther)
        }
    }
}
