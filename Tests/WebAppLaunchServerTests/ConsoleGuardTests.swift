import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer

/// Review finding 9: the console mints for anyone, so it must not be drivable by another
/// site: no CSRF token, no Host or Origin check (DNS rebinding) were the gaps.
@Suite("The development console refuses requests without its CSRF token, from another origin or for another host")
struct ConsoleGuardTests {
    static func server() throws -> TestServer {
        try TestServer(configuration: DevelopmentConsoleTests.consoleConfiguration())
    }

    static func post(_ form: String, headers extra: HTTPFields = [:], client: some TestClientProtocol) async throws -> TestResponse {
        var headers = HTTPFields()
        headers[.contentType] = "application/x-www-form-urlencoded"
        for field in extra { headers[field.name] = field.value }
        return try await client.execute(uri: "/console/launch", method: .post, headers: headers, body: ByteBuffer(string: form))
    }

    @Test("a launch form without the token, with a wrong one, or with another console's token is refused with 403 and mints nothing", arguments: [
        "user=juergen&app=healthmagazin",
        "csrf=&user=juergen&app=healthmagazin",
        "csrf=00000000000000000000000000000000&user=juergen&app=healthmagazin",
    ])
    func missingOrWrongToken(form: String) async throws {
        try await Self.server().test { client async throws in
            let response = try await Self.post(form, client: client)
            #expect(response.status == .forbidden)
            #expect(response.headers[.location] == nil)
        }
    }

    @Test("one console's token does not open another console")
    func tokensDiffer() async throws {
        let token = try await Self.server().test { client in try await client.consoleCSRFToken() }
        #expect(token.count == 32)
        try await Self.server().test { client async throws in
            #expect(try await client.consoleCSRFToken() != token)
            #expect(try await Self.post("csrf=\(token)&user=juergen&app=healthmagazin", client: client).status == .forbidden)
        }
    }

    @Test("a foreign Host (DNS rebinding) gets 403 on every console route", arguments: ["evil.example", "evil.example:8080", "127.0.0.1.evil.example", "[::2]:8080"])
    func foreignHost(host: String) async throws {
        // Over a real socket with AsyncHTTPClient, which sends the Host header it is given.
        try await Self.server().test(.ahc(.http)) { client async throws in
            var headers = HTTPFields()
            headers[HTTPField.Name("Host")!] = host
            let page = try await client.execute(uri: "/", method: .get, headers: headers)
            let navigation = try await client.execute(uri: "/console/navigation?app=healthmagazin&url=x", method: .get, headers: headers)
            #expect(page.status == .forbidden)
            #expect(navigation.status == .forbidden)
        }
    }

    @Test("a post from another site (foreign Origin, another loopback port, or Fetch Metadata cross-site or same-site) is refused even with the right token", arguments: [
        ("https://evil.example", nil), ("http://evil.example", nil), ("http://127.0.0.1:9999", nil),
        ("null", "cross-site"), (nil, "cross-site"), (nil, "same-site"),
    ] as [(String?, String?)])
    func foreignOrigin(origin: String?, fetchSite: String?) async throws {
        try await Self.server().test { client async throws in
            let token = try await client.consoleCSRFToken()
            var headers = HTTPFields()
            if let origin { headers[HTTPField.Name("Origin")!] = origin }
            if let fetchSite { headers[HTTPField.Name("Sec-Fetch-Site")!] = fetchSite }
            let response = try await Self.post("csrf=\(token)&user=juergen&app=healthmagazin", headers: headers, client: client)
            #expect(response.status == .forbidden)
        }
    }

    @Test("the console's own page, posting to itself with its token, mints (also with the Origin: null that no-referrer pages send)", arguments: ["http://localhost", "null"])
    func ownOriginMints(origin: String) async throws {
        // The live client sends `Host: localhost`, so its page's origin is http://localhost.
        try await Self.server().test(.live) { client async throws in
            let token = try await client.consoleCSRFToken()
            var headers = HTTPFields()
            headers[HTTPField.Name("Origin")!] = origin
            headers[HTTPField.Name("Sec-Fetch-Site")!] = "same-origin"
            let response = try await Self.post("csrf=\(token)&user=juergen&app=healthmagazin", headers: headers, client: client)
            #expect(response.status == .seeOther)
        }
    }
}
