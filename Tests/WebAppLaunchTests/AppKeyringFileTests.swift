import Foundation
import Testing
@_spi(Testing) @testable import WebAppLaunch

/// The two kinds of keyring file (SPEC.md §13): launcher (root secrets) and app (one app's
/// app keys, `"kind": "app"`).
@Suite("Keyring files of both kinds: app keyrings say which app they are for, and nothing mixes")
struct AppKeyringFileTests {
    static let appKey = ReferenceBase64URL.encode(Array(repeating: 7, count: 32))
    static let secret = ReferenceBase64URL.encode(Array(repeating: 9, count: 32))

    static func code(_ json: String) -> KeyringError.Code? {
        do throws(KeyringError) {
            _ = try Keyring(json: Data(json.utf8))
            return nil
        } catch {
            return error.code
        }
    }

    @Test("an exported app keyring round-trips through its JSON with kind, app, kids, statuses and app keys")
    func roundTrip() throws {
        let exported = try Fixtures.keyring.exportingApp("healthmagazin")
        let text = String(decoding: exported.jsonRepresentation(), as: UTF8.self)
        #expect(text.contains(#""kind" : "app""#))
        #expect(text.contains(#""app" : "healthmagazin""#))
        #expect(text.contains(#""app_key" : "#))
        #expect(!text.contains(#""secret""#))
        let loaded = try Keyring(json: exported.jsonRepresentation())
        #expect(loaded.appID == "healthmagazin")
        #expect(loaded.isDevelopment == Fixtures.keyring.isDevelopment)
        let fields = { (keyring: Keyring) in keyring.keys.map { [$0.kid, $0.status.rawValue, $0.secret.base64URLEncoded] } }
        #expect(fields(loaded) == fields(exported))
        #expect(loaded.keys.map(\.status) == Fixtures.keyring.keys.map(\.status))
        // No root secret survives the export.
        for key in Fixtures.keyring.keys {
            #expect(!text.contains(key.secret.base64URLEncoded))
        }
    }

    @Test("a launcher keyring file without kind (as shipped before app keyrings) still loads as a launcher keyring; written back it says so")
    func launcherWithoutKind() throws {
        let keyring = try Keyring(json: Data(#"{"keys": [{"kid": "a", "status": "active", "secret": "\#(Self.secret)"}]}"#.utf8))
        #expect(keyring.appID == nil)
        #expect(String(decoding: keyring.jsonRepresentation(), as: UTF8.self).contains(#""kind" : "launcher""#))
        #expect(try Keyring(json: keyring.jsonRepresentation()).appID == nil)
    }

    @Test("keyring files that mix the kinds or misname the app are refused with the exact code", arguments: [
        (#"{"kind": "app", "app": "healthmagazin", "keys": [{"kid": "a", "status": "active", "app_key": "\#(appKey)"}]}"#, nil),
        (#"{"kind": "launcher", "keys": [{"kid": "a", "status": "active", "secret": "\#(secret)"}]}"#, nil),
        (#"{"kind": "app", "keys": [{"kid": "a", "status": "active", "app_key": "\#(appKey)"}]}"#, KeyringError.Code.invalidJSON),
        (#"{"kind": "app", "app": "healthmagazin", "keys": [{"kid": "a", "status": "active", "secret": "\#(secret)"}]}"#, .invalidJSON),
        (#"{"kind": "app", "app": "healthmagazin", "keys": [{"kid": "a", "status": "active", "secret": "\#(secret)", "app_key": "\#(appKey)"}]}"#, .invalidJSON),
        (#"{"keys": [{"kid": "a", "status": "active", "app_key": "\#(appKey)"}]}"#, .invalidJSON),
        (#"{"kind": "launcher", "app": "healthmagazin", "keys": [{"kid": "a", "status": "active", "secret": "\#(secret)"}]}"#, .invalidJSON),
        (#"{"kind": "partner", "app": "healthmagazin", "keys": [{"kid": "a", "status": "active", "app_key": "\#(appKey)"}]}"#, .invalidJSON),
        (#"{"kind": "app", "app": "health magazin", "keys": [{"kid": "a", "status": "active", "app_key": "\#(appKey)"}]}"#, .invalidAppID),
        (#"{"kind": "app", "app": "", "keys": [{"kid": "a", "status": "active", "app_key": "\#(appKey)"}]}"#, .invalidAppID),
        (#"{"kind": "app", "app": "healthmagazin", "keys": [{"kid": "a", "status": "active", "app_key": "\#(secret)AAAA"}]}"#, .invalidSecret),
        (#"{"kind": "app", "app": "healthmagazin", "keys": []}"#, .empty),
    ] as [(String, KeyringError.Code?)])
    func refusals(json: String, expected: KeyringError.Code?) {
        #expect(Self.code(json) == expected)
    }

    @Test("an export never overwrites: writing without replacement refuses an existing file or symlink and leaves it as it was; the new file is 0600")
    func exportNeverOverwrites() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("app-keyring-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let exported = try Fixtures.keyring.exportingApp("bonus")
        let path = directory + "/app.json"
        try exported.write(toFile: path, replacingExisting: false)
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        #expect(try Keyring(contentsOfFile: path).appID == "bonus")

        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let other = try Fixtures.keyring.exportingApp("healthmagazin")
        var code: KeyringError.Code?
        do throws(KeyringError) { try other.write(toFile: path, replacingExisting: false) } catch { code = error.code }
        #expect(code == .fileExists)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        let link = directory + "/link.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory + "/nowhere.json")
        code = nil
        do throws(KeyringError) { try other.write(toFile: link, replacingExisting: false) } catch { code = error.code }
        #expect(code == .fileExists)
        #expect(!FileManager.default.fileExists(atPath: directory + "/nowhere.json"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["app.json", "link.json"], "no temporary file is left behind")
    }
}
