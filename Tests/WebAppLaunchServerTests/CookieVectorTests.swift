import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppRegistry
import WebAppLaunchTestSupport

/// The `cookies` section of the Python reference's vectors (SPEC.md §12.3; issue 32): the
/// session cookie's name and attributes, and the redirect's Location, per served URL.
struct CookieVector: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let description: String
    let served_url: String
    let app_id: String
    let session_lifetime: UInt64
    let cookie_name: String
    let attributes: [String]
    let location: String

    var testDescription: String { "\(name): \(description)" }

    /// Read from the vectors file of the WebAppLaunchTests target (one file, one generator).
    static let all: [CookieVector] = {
        struct File: Decodable { let cookies: [CookieVector] }
        let url = URL(fileURLWithPath: RepositoryFile.vectors)
        return try! JSONDecoder().decode(File.self, from: Data(contentsOf: url)).cookies
    }()
}

@Suite("The session cookie a launch sets is named and scoped exactly as the Python reference's cookie vectors say")
struct CookieVectorTests {
    @Test("an accepted launch answers 303 to the vector's Location and sets the vector's cookie name and attributes, in order", arguments: CookieVector.all)
    func cookie(_ vector: CookieVector) async throws {
        #expect(vector.app_id == Fixtures.magazin.id && vector.session_lifetime == 1800, "the fixture app, the default lifetime")
        let served = try RegisteredURL(vector.served_url)
        // Production keys: development keys serve loopback audiences only.
        let signer = try LaunchSigner(keyring: Fixtures.productionKeyring, registry: Registry(apps: [WebApp(id: vector.app_id, title: "Vector", url: served)]))
        let url = try signer.launchURL(for: vector.app_id, user: Fixtures.user, now: Fixtures.now)
        try await MiddlewareStandaloneTests.application(audiences: [served], keyring: Fixtures.productionKeyring).test(.router) { client async throws in
            let response = try await client.get(String(url.dropFirst(served.origin.count)))
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == vector.location)
            let setCookie = try #require(response.headers[.setCookie])
            let parts = setCookie.components(separatedBy: "; ")
            let pair = try #require(parts.first)
            #expect(pair.hasPrefix(vector.cookie_name + "="))
            #expect(Array(parts.dropFirst()) == vector.attributes)
        }
    }
}
