import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import WebAppRegistry
import WebAppLaunchTestSupport

@Suite("The registry of web apps")
struct RegistryTests {
    static func code(_ body: () throws(RegistryError) -> Void) -> RegistryError.Code? {
        do throws(RegistryError) {
            try body()
            return nil
        } catch {
            return error.code
        }
    }

    @Test("the sample registry loads with its two apps, found by id and by any spelling of their URL")
    func sample() throws {
        let registry = try Registry(contentsOfFile: RepositoryFile.sampleRegistry)
        #expect(registry.apps.map(\.id) == ["healthmagazin", "bonusprogramm"])
        #expect(registry.app(id: "healthmagazin")?.url.description == "http://127.0.0.1:8080/apps/healthmagazin")
        #expect(registry.app(id: "bonusprogramm")?.url.query == "tenant=demo")
        #expect(registry.app(at: try RegisteredURL("HTTP://127.0.0.1:8080/apps/healthmagazin"))?.id == "healthmagazin")
        #expect(registry.app(at: try RegisteredURL("http://127.0.0.1:8080/apps/healthmagazin/")) == nil)
        #expect(registry.app(id: "unknown") == nil)
        #expect(registry.app(id: "healthmagazin")?.deepLinks?.hosts == ["healthmagazin"])
    }

    @Test("duplicate app ids and duplicate URLs (after normalisation) are refused")
    func duplicates() throws {
        let a = try WebApp(id: "a", title: "A", url: RegisteredURL("https://a.example/"))
        let sameID = try WebApp(id: "a", title: "A2", url: RegisteredURL("https://other.example/"))
        let sameURL = try WebApp(id: "b", title: "B", url: RegisteredURL("HTTPS://A.example:443"))
        #expect(Self.code { () throws(RegistryError) in _ = try Registry(apps: [a, sameID]) } == .duplicateApp)
        #expect(Self.code { () throws(RegistryError) in _ = try Registry(apps: [a, sameURL]) } == .duplicateApp)
        let json = Data(#"{"apps": [{"id": "x", "title": "X", "url": "https://x.example/"}, {"id": "x", "title": "Y", "url": "https://y.example/"}]}"#.utf8)
        #expect(Self.code { () throws(RegistryError) in _ = try Registry(json: json) } == .duplicateApp)
    }

    @Test("bad files and entries fail with the exact code", arguments: [
        (#"{"apps": 1}"#, RegistryError.Code.invalidJSON),
        (#"not json"#, .invalidJSON),
        (#"{"apps": [{"id": "a b", "title": "X", "url": "https://x.example/"}]}"#, .invalidAppID),
        (#"{"apps": [{"id": "", "title": "X", "url": "https://x.example/"}]}"#, .invalidAppID),
        (#"{"apps": [{"id": "x", "title": "X", "url": "http://x.example/"}]}"#, .invalidURL),
        (#"{"apps": [{"id": "x", "title": "X", "url": "https://x.example/?launch=1"}]}"#, .invalidURL),
        (#"{"apps": [{"id": "x", "title": "X", "url": "https://x.example/", "deepLinks": {"scheme": "https", "hosts": ["a"]}}]}"#, .invalidAllowlist),
    ])
    func refusals(_ json: String, _ expected: RegistryError.Code) {
        #expect(Self.code { () throws(RegistryError) in _ = try Registry(json: Data(json.utf8)) } == expected)
    }

    @Test("a missing registry file is unreadable")
    func missingFile() {
        #expect(Self.code { () throws(RegistryError) in _ = try Registry(contentsOfFile: "/nonexistent/registry.json") } == .unreadableFile)
    }

    @Test("a registry file that group or others may write is refused (insecure_permissions), through a symlink too; readable by all, or not a regular file (unreadable_file), as the keyring")
    func filePermissions() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let json = try String(contentsOfFile: RepositoryFile.sampleRegistry, encoding: .utf8)
        func file(_ name: String, mode: mode_t) throws -> String {
            let path = directory.path(name)
            try json.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(chmod(path, mode) == 0)
            return path
        }
        for mode: mode_t in [0o664, 0o646, 0o666, 0o622] {
            let path = try file("loose-\(String(mode, radix: 8)).json", mode: mode)
            do {
                _ = try Registry(contentsOfFile: path)
                Issue.record("a registry of mode \(String(mode, radix: 8)) was loaded")
            } catch {
                #expect(error.code == .insecurePermissions)
                #expect(error.reason.contains(path) && error.reason.contains("chmod go-w"), "\(error.reason)")
            }
        }
        for mode: mode_t in [0o644, 0o600, 0o444] {
            let path = try file("tight-\(String(mode, radix: 8)).json", mode: mode)
            #expect(try Registry(contentsOfFile: path).apps.count == 2)
        }
        // A link (0777 itself) is judged by its target's mode.
        let target = try file("target.json", mode: 0o644)
        let link = directory.path("link.json")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(try Registry(contentsOfFile: link).apps.count == 2)
        #expect(chmod(target, 0o666) == 0)
        #expect(Self.code { () throws(RegistryError) in _ = try Registry(contentsOfFile: link) } == .insecurePermissions)
        // A directory or a FIFO is no registry (the FIFO's open does not block).
        #expect(Self.code { () throws(RegistryError) in _ = try Registry(contentsOfFile: directory.path("")) } == .unreadableFile)
        let fifo = directory.path("registry.fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect(Self.code { () throws(RegistryError) in _ = try Registry(contentsOfFile: fifo) } == .unreadableFile)
    }

    @Test("app ids are 1 to 64 characters of [A-Za-z0-9._-]")
    func appIDs() {
        #expect(WebApp.isValidID("health-magazin_2.0"))
        #expect(WebApp.isValidID(String(repeating: "a", count: 64)))
        #expect(!WebApp.isValidID(String(repeating: "a", count: 65)))
        #expect(!WebApp.isValidID(""))
        #expect(!WebApp.isValidID("a/b"))
        #expect(!WebApp.isValidID("mägazin"))
    }
}
