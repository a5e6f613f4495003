import Foundation
import Testing
@testable import WebAppLaunch
import WebAppRegistry

extension VectorFile.URLCase: CustomTestStringConvertible {
    var testDescription: String { "\(name): \(description)" }
}

extension VectorFile.RegistryCase: CustomTestStringConvertible {
    var testDescription: String { "\(name): \(description)" }
}

extension VectorFile.KeyringCase: CustomTestStringConvertible {
    var testDescription: String { "\(name): \(description)" }
}

/// The rules around the token that a second implementation can observe (issue 32): registered
/// URLs, registry files and keyring files, each against the Python reference's verdicts.
@Suite("Registered URLs, registries and keyrings load exactly as the Python reference says", .tags(.knownAnswer))
struct FileFormatVectorTests {
    static let file = VectorFile.shared

    @Test("the vectors file names format version 2 and covers every registry and keyring error code")
    func coverage() {
        #expect(Self.file.format == "WebAppLaunch launch token, version 2 (SPEC.md)")
        #expect(Set(Self.file.registries.compactMap(\.expected_error)) == [
            "invalid_json", "invalid_app_id", "invalid_url", "invalid_allowlist", "invalid_icon_url", "invalid_category", "duplicate_app",
        ])
        #expect(Set(Self.file.keyrings.compactMap(\.expected_error)) == [
            "invalid_json", "invalid_app_id", "empty_keyring", "invalid_kid", "invalid_secret", "duplicate_kid",
        ])
        #expect(Self.file.urls.contains { $0.canonical == nil } && Self.file.urls.contains { $0.loopback == true })
    }

    @Test("a registered URL parses to exactly its canonical text and loopback verdict, or is refused as invalid_url", arguments: file.urls)
    func registeredURL(_ vector: VectorFile.URLCase) {
        do {
            let url = try RegisteredURL(vector.url)
            #expect(url.description == vector.canonical)
            #expect(url.isLoopback == vector.loopback)
            // The canonical text is a fixed point: parsing it again gives itself.
            #expect((try? RegisteredURL(url.description))?.description == url.description)
        } catch {
            #expect(vector.canonical == nil, "refused: \(error.reason)")
            #expect(error.code == .invalidURL)
        }
    }

    @Test("a registry file loads to exactly the stated apps, or is refused with exactly the stated code", arguments: file.registries)
    func registry(_ vector: VectorFile.RegistryCase) {
        do {
            let registry = try Registry(json: Data(vector.json.utf8))
            let apps = registry.apps.map { app in
                VectorFile.RegistryApp(
                    id: app.id, title: app.title, summary: app.summary, url: app.url.description,
                    deepLinks: app.deepLinks.map { .init(scheme: $0.scheme, hosts: $0.hosts, pathPrefixes: $0.pathPrefixes, queryKeys: $0.queryKeys) },
                    iconURL: app.iconURL?.absoluteString, category: app.category
                )
            }
            #expect(vector.expected_error == nil)
            #expect(apps == vector.apps)
        } catch {
            #expect(error.code.rawValue == vector.expected_error, "\(error.reason)")
        }
    }

    @Test("a keyring file loads to exactly the stated kind, app, flag, kids and statuses, or is refused with exactly the stated code", arguments: file.keyrings)
    func keyring(_ vector: VectorFile.KeyringCase) {
        do {
            let keyring = try Keyring(json: Data(vector.json.utf8))
            let summary = VectorFile.KeyringSummary(
                kind: keyring.appID == nil ? "launcher" : "app", app: keyring.appID, development: keyring.isDevelopment,
                keys: keyring.keys.map { .init(kid: $0.kid, status: $0.status.rawValue) }
            )
            #expect(vector.expected_error == nil)
            #expect(summary == vector.keyring)
        } catch {
            #expect(error.code.rawValue == vector.expected_error, "\(error.reason)")
        }
    }
}
