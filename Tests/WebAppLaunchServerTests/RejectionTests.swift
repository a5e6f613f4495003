import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppLaunchTestSupport
import WebAppRegistry

/// One rejected request, end to end: what is sent, when, and the precise code the log must name.
struct RejectionCase: Sendable, CustomTestStringConvertible {
    let name: String
    let method: HTTPRequest.Method
    let uri: String
    var form: String?
    /// Seconds the server's clock is moved past the minting time before the request.
    var clockOffset: TimeInterval = 0
    /// How many times the same request is answered (303) before the one under test.
    var priorUses = 0
    let code: LaunchError.Code

    var testDescription: String { name }
    var publicReason: LaunchError.PublicReason { LaunchError(code, "").publicReason }

    static func get(_ name: String, _ uri: String, clockOffset: TimeInterval = 0, priorUses: Int = 0, _ code: LaunchError.Code) -> Self {
        RejectionCase(name: name, method: .get, uri: uri, clockOffset: clockOffset, priorUses: priorUses, code: code)
    }

    static func post(_ name: String, _ uri: String, form: String, _ code: LaunchError.Code) -> Self {
        RejectionCase(name: name, method: .post, uri: uri, form: form, code: code)
    }

    func send(with client: some TestClientProtocol, json: Bool) async throws -> TestResponse {
        if let form { return try await client.postForm(uri, form: form, json: json) }
        return try await client.get(uri, json: json)
    }
}

@Suite("Every rejected launch is a 401 naming only a generic reason, with the precise code in the log")
struct RejectionTests {
    static let magazinPath = "/apps/healthmagazin"

    static let cases: [RejectionCase] = {
        let magazin = Fixtures.magazin
        let token = Fixtures.token(for: magazin)
        let bonusToken = Fixtures.token(for: Fixtures.bonus)
        let impostorRegistry = try! Registry(apps: [WebApp(id: "impostor", title: "Impostor", url: magazin.url)])
        let wrongApp = try! LaunchSigner(keyring: Fixtures.keyring, registry: impostorRegistry)
            .launchToken(for: "impostor", user: Fixtures.user, now: Fixtures.now)
        let unknownKid = Fixtures.token(for: magazin, signer: Fixtures.signer(kid: "stranger", secret: 0x30))
        let revokedKid = Fixtures.token(for: magazin, signer: Fixtures.signer(kid: "gone", secret: 0x20))
        let sameKidOtherSecret = Fixtures.token(for: magazin, signer: Fixtures.signer(kid: "current", secret: 0x99))
        let future = Fixtures.token(for: magazin, issuedAt: Fixtures.now + 3600)
        // The magazine's own keys, another of its URLs as audience: the MAC holds, the audience does not.
        let elsewhereRegistry = try! Registry(apps: [WebApp(id: magazin.id, title: "Elsewhere", url: RegisteredURL("http://127.0.0.1:8080/apps/elsewhere"))])
        let otherAudience = try! LaunchSigner(keyring: Fixtures.keyring, registry: elsewhereRegistry)
            .launchToken(for: magazin.id, user: Fixtures.user, now: Fixtures.now)
        let path = magazinPath
        return [
            .get("a token with one bit of its MAC flipped", "\(path)?launch=\(Fixtures.flippingBit(of: token, atByte: -1))", .badSignature),
            .get("a token with one bit of its sealed claims flipped", "\(path)?launch=\(Fixtures.flippingBit(of: token, atByte: -60))", .badSignature),
            .get("a token with one bit of its expiry flipped", "\(path)?launch=\(Fixtures.flippingBit(of: token, atByte: 3 + 7 + 8 + 7))", .badSignature),
            .get("a token signed under the right kid with another secret", "\(path)?launch=\(sameKidOtherSecret)", .badSignature),
            .get("a token under an unknown kid", "\(path)?launch=\(unknownKid)", .unknownKey),
            .get("a token under a revoked kid", "\(path)?launch=\(revokedKid)", .revokedKey),
            .get("a token presented at expiry plus skew", "\(path)?launch=\(token)", clockOffset: 60 + 60, .expired),
            .get("a token presented a day after it expired", "\(path)?launch=\(token)", clockOffset: 86_400, .expired),
            .get("a token issued an hour in the future", "\(path)?launch=\(future)", .notYetValid),
            // Per-app keys: another app's launch fails at the MAC, before its audience is read.
            .get("a token minted for the bonus app presented at the magazine's path", "\(path)?launch=\(bonusToken)", .badSignature),
            .get("a token with the magazine's audience but another app id", "\(path)?launch=\(wrongApp)", .badSignature),
            .get("a token under the magazine's keys for another of its URLs", "\(path)?launch=\(otherAudience)", .wrongAudience),
            .get("a launch with an extra query parameter", "\(path)?launch=\(token)&utm_source=mail", .unexpectedParameters),
            .get("a bonus launch without its registered tenant parameter", "/apps/bonus?launch=\(bonusToken)", .unexpectedParameters),
            .get("a bonus launch with its tenant parameter changed", "/apps/bonus?tenant=evil&launch=\(bonusToken)", .unexpectedParameters),
            .get("a bonus launch with its tenant parameter repeated", "/apps/bonus?tenant=demo&tenant=demo&launch=\(bonusToken)", .unexpectedParameters),
            .get("a launch parameter repeated in one query", "\(path)?launch=\(token)&launch=\(token)", .malformed),
            .post("a launch in both the query and the form", "\(path)?launch=\(token)", form: "launch=\(token)", .malformed),
            .post("a form with a field besides launch", path, form: "launch=\(token)&next=%2Fadmin", .unexpectedParameters),
            .get("a launch presented a second time", "\(path)?launch=\(token)", priorUses: 1, .alreadyUsed),
            .get("an empty launch parameter", "\(path)?launch=", .malformed),
            .get("a launch parameter without a value", "\(path)?launch", .malformed),
            .post("an empty launch form field", path, form: "launch=", .malformed),
            .get("a query with an empty parameter before the launch", "\(path)?&launch=\(token)", .malformed),
            .get("an oversize token", "\(path)?launch=\(String(repeating: "A", count: 16_385))", .tooLarge),
            .get("garbage that is not base64url", "\(path)?launch=not*base64!", .malformed),
            .get("a token with base64 padding appended", "\(path)?launch=\(token)=", .malformed),
            .get("a token in standard base64 instead of base64url", "\(path)?launch=\(token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/"))", .malformed),
        ]
    }()

    @Test("the rejection is a 401 with no cookie, the generic reason in JSON, and the precise code only in the log and metrics", arguments: cases)
    func rejectedAsJSON(_ row: RejectionCase) async throws {
        let server = try TestServer()
        server.clock.advance(by: .seconds(row.clockOffset))
        try await server.test { client in
            for _ in 0..<row.priorUses {
                #expect(try await row.send(with: client, json: true).status == .seeOther)
            }
            let response = try await row.send(with: client, json: true)
            #expect(response.status == .unauthorized)
            #expect(response.setCookies.isEmpty)
            #expect(response.headers[.location] == nil)
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            let json = try #require(response.jsonObject)
            #expect(json["error"] == row.publicReason.rawValue)
            #expect(Set(json.keys) == ["error", "hint"])
            if row.code.rawValue != row.publicReason.rawValue {
                #expect(!response.everything.contains(row.code.rawValue), "the precise code must not reach the client")
            }
        }
        #expect(server.logs.lines("launch.rejected", where: "code", is: row.code.rawValue).count == 1, "the log names the precise code")
        #expect(server.logs.lines("launch.rejected", where: "app", is: "healthmagazin").count + server.logs.lines("launch.rejected", where: "app", is: "bonus").count == 1)
        let exposition = server.server.metrics.exposition()
        #expect(exposition.split(separator: "\n").contains { $0.hasPrefix("webapp_launch_rejected_total{") && $0.contains(#"code="\#(row.code.rawValue)""#) })
    }

    @Test("the HTML rejection page names only the generic reason and sets no cookie", arguments: cases)
    func rejectedAsHTML(_ row: RejectionCase) async throws {
        let server = try TestServer()
        server.clock.advance(by: .seconds(row.clockOffset))
        try await server.test { client in
            for _ in 0..<row.priorUses {
                _ = try await row.send(with: client, json: false)
            }
            let response = try await row.send(with: client, json: false)
            #expect(response.status == .unauthorized)
            #expect(response.setCookies.isEmpty)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            #expect(response.text.contains(#"<code id="reason">\#(row.publicReason.rawValue)</code>"#))
            if row.code.rawValue != row.publicReason.rawValue {
                #expect(!response.everything.contains(row.code.rawValue))
            }
        }
    }
}
