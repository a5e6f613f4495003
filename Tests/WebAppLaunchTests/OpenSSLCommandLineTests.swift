import Foundation
import Testing
@testable import WebAppLaunch
import WebAppLaunchTestSupport

@Suite("HMAC-SHA256 agrees with the openssl command-line tool", .tags(.knownAnswer))
struct OpenSSLCommandLineTests {
    static let openssl = "/usr/bin/openssl"

    /// The command-line tool's MAC of `message` under `key`, run through the tests' own
    /// runner (bounded, off the cooperative pool).
    static func openSSLHMAC(key: [UInt8], message: [UInt8]) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hmac-\(UUID().uuidString)")
        try Data(message).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await runSubprocess(openssl, ["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:\(Hex.encode(key))", file.path])
        #expect(result.status == 0, "\(result)")
        let text = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        return String(text.split(separator: " ").last ?? "")
    }

    @Test(
        "20 random keys and messages give the same MAC as `openssl dgst -mac HMAC`",
        .enabled(if: FileManager.default.isExecutableFile(atPath: openssl))
    )
    func agreesWithCommandLine() async throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<20 {
            let keyLength = [1, 16, 32, 64, 65, 131][round % 6]
            let messageLength = round == 0 ? 0 : Int.random(in: 1...3000, using: &generator)
            let key = (0..<keyLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let message = (0..<messageLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let ours = Hex.encode(try HMACSHA256Key(key: key).authenticationCode(message: message))
            let theirs = try await Self.openSSLHMAC(key: key, message: message)
            #expect(theirs.count == 64)
            #expect(ours == theirs, "key length \(keyLength), message length \(messageLength)")
        }
    }
}
