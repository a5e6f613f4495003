import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import HummingbirdTesting
import Testing
import WebAppLaunchLauncher
import WebAppRegistry

/// `GET /v1/catalogue`: the registered apps as cards, revalidated by ETag.
@Suite("Catalogue")
struct CatalogueTests {
    @Test("The catalogue lists every registered app as a card, with ETag and Cache-Control")
    func cards() async throws {
        let app = LauncherFixtures.application(LauncherFixtures.service(provider: StubIdentityProvider.vouching()))
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/catalogue", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.cacheControl] == "public, max-age=300")
                let etag = try #require(response.headers[.eTag])
                #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 34)
                let apps = try #require(LauncherFixtures.json(response.body)["apps"] as? [[String: Any]])
                #expect(apps.count == 2)
                #expect(apps[0]["id"] as? String == "healthmagazin")
                #expect(apps[0]["title"] as? String == "Gesundheitsmagazin")
                #expect(apps[0]["summary"] as? String == "Articles on prevention and everyday health.")
                #expect(apps[0]["iconURL"] as? String == "https://cdn.example-insurer.de/icons/magazin.png")
                #expect(apps[0]["category"] as? String == "health")
                #expect(apps[0]["url"] as? String == "http://127.0.0.1:8080/apps/healthmagazin")
                #expect(apps[1]["iconURL"] == nil)
                #expect(apps[1]["category"] as? String == WebApp.defaultCategory)
                #expect(apps[1]["url"] as? String == "http://127.0.0.1:8080/apps/bonusprogramm?tenant=demo")
            }
        }
    }

    @Test("If-None-Match with the ETag (strong, weak, in a list, or *) is 304 without a body", arguments: [
        "{etag}", "W/{etag}", "\"other\", {etag}", "*",
    ])
    func notModified(template: String) async throws {
        let service = LauncherFixtures.service(provider: StubIdentityProvider.vouching())
        let app = LauncherFixtures.application(service)
        try await app.test(.router) { client in
            var headers = HTTPFields()
            headers[.ifNoneMatch] = template.replacingOccurrences(of: "{etag}", with: service.catalogue.etag)
            try await client.execute(uri: "/v1/catalogue", method: .get, headers: headers) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
                #expect(response.headers[.eTag] == service.catalogue.etag)
            }
            headers[.ifNoneMatch] = "\"stale\""
            try await client.execute(uri: "/v1/catalogue", method: .get, headers: headers) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test("A different registry has a different ETag")
    func etagFollowsContent() throws {
        let one = Catalogue(registry: LauncherFixtures.registry)
        let other = Catalogue(registry: try Registry(apps: [LauncherFixtures.magazin]))
        #expect(one.etag != other.etag)
        #expect(one.etag == Catalogue(registry: LauncherFixtures.registry).etag)
    }

    @Test("The registry reads icon URLs and categories, and refuses unsafe ones")
    func registryDisplayFields() throws {
        let json = #"{"apps":[{"id":"a","title":"A","url":"https://a.example/app","iconURL":"https://a.example/i.png","category":"health"},{"id":"b","title":"B","url":"https://b.example/app"}]}"#
        let registry = try Registry(json: Data(json.utf8))
        #expect(registry.app(id: "a")?.iconURL?.absoluteString == "https://a.example/i.png")
        #expect(registry.app(id: "a")?.category == "health")
        #expect(registry.app(id: "b")?.iconURL == nil)
        #expect(registry.app(id: "b")?.category == "general")
        for icon in ["http://cdn.example/i.png", "javascript:alert(1)", "data:image/png;base64,AA", "https://user:pw@cdn.example/i.png"] {
            let bad = #"{"apps":[{"id":"a","title":"A","url":"https://a.example/app","iconURL":"\#(icon)"}]}"#
            #expect(throws: RegistryError.self) { try Registry(json: Data(bad.utf8)) }
        }
        let badCategory = #"{"apps":[{"id":"a","title":"A","url":"https://a.example/app","category":""}]}"#
        #expect(throws: RegistryError.self) { try Registry(json: Data(badCategory.utf8)) }
    }
}
