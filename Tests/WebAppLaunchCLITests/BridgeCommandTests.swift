import Foundation
import Testing
import WebAppLaunchTestSupport

@Suite("bridge decodes page messages as the native app would")
struct BridgeCommandTests {
    static func decode(_ line: Substring) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("an allow-listed deep link is routed in the app, exit 0")
    func deepLinkRoutedInApp() async throws {
        let message = #"{"action":"deeplink","data":"navidapro://healthmagazin/details?article_id=606"}"#
        let result = try await CLI.run(["bridge", "--app", "healthmagazin", "--registry", RepositoryFile.sampleRegistry, message])
        #expect(result.status == 0, "\(result)")
        let object = try Self.decode(try #require(result.standardOutput.split(separator: "\n").first))
        #expect(object["action"] as? String == "deeplink")
        #expect(object["decision"] as? String == "routeInApp")
        #expect(object["refused"] as? Bool == false)
        #expect(object["data"] as? String == "navidapro://healthmagazin/details?article_id=606")
    }

    @Test("a javascript: URL is refused with exit 1, as a deep link or as openUrl", arguments: [
        #"{"action":"deeplink","data":"javascript:alert(document.cookie)"}"#,
        #"{"action":"openUrl","data":"javascript:alert(document.cookie)"}"#,
        #"{"action":"deeplink","data":"navidapro://bonus/points?id=1"}"#,
    ])
    func refused(message: String) async throws {
        let result = try await CLI.run(["bridge", "--app", "healthmagazin", message])
        #expect(result.status == 1, "\(result)")
        let object = try Self.decode(try #require(result.standardOutput.split(separator: "\n").first))
        #expect(object["refused"] as? Bool == true)
        #expect(object["decision"] as? String != "routeInApp")
        #expect(result.errorLines.count == 1)
    }

    @Test("bridge - decodes one JSON line per message and exits 1 if any is refused")
    func standardInput() async throws {
        let lines = [
            #"{"action":"displayText","data":"Hallo"}"#,
            #"{"action":"openUrl","data":"https://example.org/"}"#,
            #"{"action":"deeplink","data":"javascript:alert(1)"}"#,
        ]
        let result = try await CLI.run(["bridge", "--app", "healthmagazin", "-"], input: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 1, "\(result)")
        let objects = try result.standardOutput.split(separator: "\n").map(Self.decode)
        #expect(objects.count == 3)
        #expect(objects.map { $0["refused"] as? Bool } == [false, false, true])
        #expect(objects[1]["decision"] as? String == "openExternally")

        let accepted = try await CLI.run(["bridge", "--app", "healthmagazin", "-"], input: lines.dropLast().joined(separator: "\n"))
        #expect(accepted.status == 0, "\(accepted)")
    }
}
