import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import WebAppLaunchLauncher
import WebAppLaunchReload
import WebAppRegistry

/// `--registry https://…` (issue 35): a CMS is asked with `If-None-Match`, and whatever it
/// does wrong, the last good copy stays.
@Suite("A registry from a CMS: ETag revalidation, and the last good copy kept through failures")
struct RemoteRegistryTests {
    /// What the fake CMS answers next.
    enum Answer: Sendable { case registry(String), status(Int), garbage, huge }

    final class CMS: Sendable {
        let answer = Mutex<Answer>(.registry(RemoteRegistryTests.registryJSON(title: "Gesundheitsmagazin")))
        let ifNoneMatch = Mutex<[String?]>([])
    }

    static func registryJSON(title: String) -> String {
        #"{"apps": [{"id": "healthmagazin", "title": "\#(title)", "url": "http://127.0.0.1:8080/apps/healthmagazin"}]}"#
    }

    static func application(_ cms: CMS) -> some ApplicationProtocol {
        let router = Router()
        router.get("registry.json") { request, _ -> Response in
            let sent = request.headers[.ifNoneMatch]
            cms.ifNoneMatch.withLock { $0.append(sent) }
            switch cms.answer.withLock({ $0 }) {
            case .registry(let json):
                let etag = "\"" + String(json.hashValue, radix: 16) + "\""
                if sent == etag { return Response(status: .notModified, headers: [.eTag: etag]) }
                return Response(status: .ok, headers: [.eTag: etag, .contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
            case .status(let code):
                return Response(status: HTTPResponse.Status(code: code))
            case .garbage:
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "<html>maintenance</html>")))
            case .huge:
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(repeating: UInt8(ascii: " "), count: 200_000)))
            }
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    @Test("the registry is fetched, revalidated with If-None-Match (304 keeps the copy), and a change is taken")
    func revalidates() async throws {
        let cms = CMS()
        try await Self.application(cms).test(.live) { client in
            let port = try #require(client.port)
            let http = IdentityProviderHTTPClient.make()
            let remote = try RemoteRegistry(url: URL(string: "http://127.0.0.1:\(port)/registry.json")!, client: http, maximumBytes: 64 * 1024)
            #expect(try await remote.fetch().app(id: "healthmagazin")?.title == "Gesundheitsmagazin")
            #expect(try await remote.fetch().app(id: "healthmagazin")?.title == "Gesundheitsmagazin")
            cms.answer.withLock { $0 = .registry(Self.registryJSON(title: "Magazin Neu")) }
            #expect(try await remote.fetch().app(id: "healthmagazin")?.title == "Magazin Neu")
            let sent = cms.ifNoneMatch.withLock { $0 }
            #expect(sent.count == 3)
            #expect(sent[0] == nil)
            #expect(sent[1] != nil && sent[1] == sent[2], "the second and third fetch revalidate the first copy")
            try await http.shutdown()
        }
    }

    @Test("a CMS that answers 5xx, garbage or too much, or is down, keeps the last good registry in use", arguments: ["503", "garbage", "huge", "down"])
    func keepsLastGood(failure: String) async throws {
        let cms = CMS()
        let http = IdentityProviderHTTPClient.make(connectTimeout: .seconds(1), readTimeout: .seconds(2))
        let reloadable = try await Self.application(cms).test(.live) { client in
            let port = try #require(client.port)
            let remote = try RemoteRegistry(url: URL(string: "http://127.0.0.1:\(port)/registry.json")!, client: http, maximumBytes: 64 * 1024)
            let reloadable = ReloadableConfiguration(name: "registry", initial: try await remote.fetch()) { try await remote.fetch() }
            if failure != "down" {
                cms.answer.withLock {
                    $0 = switch failure {
                    case "503": .status(503)
                    case "garbage": .garbage
                    default: .huge
                    }
                }
                let outcome = await reloadable.reload()
                #expect(!outcome.isReloaded, "\(outcome)")
            }
            return reloadable
        }
        if failure == "down" {  // the CMS has stopped: nothing answers on its port
            let outcome = await reloadable.reload()
            #expect(!outcome.isReloaded, "\(outcome)")
        }
        #expect(reloadable.current.app(id: "healthmagazin")?.title == "Gesundheitsmagazin")
        #expect(reloadable.generation == 0)
        try await http.shutdown()
    }

    @Test("a registry URL must be https, or http on loopback only", arguments: [
        ("https://cms.example/registry.json", true), ("http://127.0.0.1:9000/r.json", true), ("http://[::1]:9000/r.json", true),
        ("http://cms.example/registry.json", false), ("http://127.evil.example/r.json", false), ("ftp://cms.example/r.json", false),
        ("https://user:pw@cms.example/r.json", false),
    ])
    func acceptableURLs(url: String, accepted: Bool) {
        #expect(RemoteRegistry.isAcceptable(URL(string: url)!) == accepted)
    }
}
