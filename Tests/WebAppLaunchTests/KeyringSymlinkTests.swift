import Foundation
import Testing
@testable import WebAppLaunch

/// Issue 12 (info): Kubernetes mounts secrets as symlinks (`keyring.json -> ..data/keyring.json`).
/// The permission check must judge the file the path resolves to, not the link (always 0777).
@Suite("Keyring permissions are those of the file a symlink resolves to")
struct KeyringSymlinkTests {
    /// A production keyring file at `mode`, and a symlink to it in the same directory.
    static func linkedKeyring(mode: Int) throws -> (link: String, target: String) {
        let json = KeyringTests.json([("prod", "active", KeyringTests.good)], development: false)
        let target = try KeyringTests.temporaryFile(json, mode: mode)
        let link = target + ".link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        return (link, target)
    }

    @Test("a symlink to a 0600 production keyring is accepted", arguments: [0o600, 0o400])
    func acceptsPrivateTarget(mode: Int) throws {
        let (link, target) = try Self.linkedKeyring(mode: mode)
        defer { [link, target].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let keyring = try Keyring(contentsOfFile: link)
        #expect(keyring.key(kid: "prod") != nil)
        #expect(!keyring.isDevelopment)
    }

    @Test("a symlink to a group- or other-accessible production keyring is refused with the target's mode", arguments: [0o644, 0o640, 0o604, 0o620])
    func refusesLooseTarget(mode: Int) throws {
        let (link, target) = try Self.linkedKeyring(mode: mode)
        defer { [link, target].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        do throws(KeyringError) {
            _ = try Keyring(contentsOfFile: link)
            Issue.record("a keyring of mode \(String(mode, radix: 8)) behind a symlink was accepted")
        } catch {
            #expect(error.code == .insecurePermissions)
            #expect(error.reason.contains("mode \(String(mode, radix: 8))"), "\(error.reason)")
        }
    }

    @Test("a keyring path that is a directory, or a link to one, is refused as unreadable")
    func refusesDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyring-dir-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(KeyringTests.code { () throws(KeyringError) in _ = try Keyring(contentsOfFile: directory) } == .unreadableFile)
    }
}
