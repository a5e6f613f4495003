import Foundation
import Testing
import WebAppLaunchTestSupport

/// Issue 12, finding 10, through the CLI: a copy of the shipped development keyring with its
/// flag removed is still refused off loopback.
@Suite("serve refuses the shipped development secrets off loopback, whatever the keyring's flag")
struct PublishedDevelopmentKeyringCommandTests {
    @Test("serve --host 0.0.0.0 with a flagless 0600 copy of the shipped keyring exits 2 with one line about development keys", arguments: [nil, false] as [Bool?])
    func refusesFlaglessCopy(flag: Bool?) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let shipped = try Data(contentsOf: URL(fileURLWithPath: RepositoryFile.developmentKeyring))
        var object = try #require(try JSONSerialization.jsonObject(with: shipped) as? [String: Any])
        if let flag { object["development"] = flag } else { object.removeValue(forKey: "development") }
        let copy = directory.path("copy.keyring.json")
        #expect(FileManager.default.createFile(atPath: copy, contents: try JSONSerialization.data(withJSONObject: object), attributes: [.posixPermissions: 0o600]))
        #expect(try permissions(of: copy) == 0o600)

        let result = try await CLI.run(["serve", "--host", "0.0.0.0", "--port", "\(try freeLoopbackPort())", "--keyring", copy], timeout: .seconds(10))
        #expect(result.status == 2, "\(result)")
        #expect(result.standardOutput.isEmpty)
        #expect(result.errorLines.count == 1, "\(result)")
        #expect(result.standardError.contains("development keys"), "\(result)")
    }
}
