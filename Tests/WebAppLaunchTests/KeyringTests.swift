import Foundation
import Testing
@_spi(Testing) @testable import WebAppLaunch
import WebAppLaunchTestSupport

@Suite("Keyring files: loading, refusals, permissions and writing")
struct KeyringTests {
    static func secretText(_ count: Int, fill: UInt8 = 7) -> String {
        ReferenceBase64URL.encode(Array(repeating: fill, count: count))
    }

    static func json(_ keys: [(kid: String, status: String, secret: String)], development: Bool? = false) -> Data {
        let entries = keys.map { "{\"kid\": \"\($0.kid)\", \"status\": \"\($0.status)\", \"secret\": \"\($0.secret)\"}" }
        let flag = development.map { "\"development\": \($0), " } ?? ""
        return Data("{\(flag)\"keys\": [\(entries.joined(separator: ", "))]}".utf8)
    }

    static func temporaryFile(_ contents: Data, mode: Int) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keyring-\(UUID().uuidString).json").path
        try contents.write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    static func code(_ body: () throws(KeyringError) -> Void) -> KeyringError.Code? {
        do throws(KeyringError) {
            try body()
            return nil
        } catch {
            return error.code
        }
    }

    static let good = secretText(32)

    @Test("malformed keyrings fail with the exact error code", arguments: [
        ("bad JSON", Data("{".utf8), KeyringError.Code.invalidJSON),
        ("keys not a list", Data("{\"keys\": 5}".utf8), .invalidJSON),
        ("an unknown status", json([("a", "primary", good)]), .invalidJSON),
        ("a 31-byte secret", json([("a", "active", secretText(31))]), .invalidSecret),
        ("a 129-byte secret", json([("a", "active", secretText(129))]), .invalidSecret),
        ("a padded secret", json([("a", "active", good + "=")]), .invalidSecret),
        ("a standard-alphabet secret", json([("a", "active", "+" + good.dropFirst())]), .invalidSecret),
        ("a secret with non-canonical trailing bits", json([("a", "active", String(good.dropLast()) + "B")]), .invalidSecret),
        ("duplicate kids", json([("a", "active", good), ("a", "verify-only", secretText(32, fill: 9))]), .duplicateKeyID),
        ("a kid with a space", json([("a b", "active", good)]), .invalidKeyID),
        ("an empty kid", json([("", "active", good)]), .invalidKeyID),
        ("a 65-character kid", json([(String(repeating: "k", count: 65), "active", good)]), .invalidKeyID),
        ("a non-ASCII kid", json([("schlüssel", "active", good)]), .invalidKeyID),
        ("an empty key list", json([]), .empty),
    ])
    func refusals(_ name: String, _ data: Data, _ expected: KeyringError.Code) {
        #expect(Self.code { () throws(KeyringError) in _ = try Keyring(json: data) } == expected, "\(name)")
    }

    @Test("secrets of 32 and 128 bytes are accepted")
    func secretLengthBounds() throws {
        let keyring = try Keyring(json: Self.json([("a", "active", Self.secretText(32)), ("b", "active", Self.secretText(128))]))
        #expect(keyring.keys.map(\.kid) == ["a", "b"])
        #expect(keyring.isDevelopment == false)
        #expect(Self.code { () throws(KeyringError) in _ = try KeySecret(bytes: Array(repeating: 1, count: 31)) } == .invalidSecret)
    }

    @Test("a missing file is reported as missing")
    func missingFile() {
        let path = "/nonexistent/\(UUID().uuidString).json"
        #expect(Self.code { () throws(KeyringError) in _ = try Keyring(contentsOfFile: path) } == .missingFile)
    }

    @Test("a production keyring readable or writable by group or others is refused", arguments: [0o640, 0o604, 0o644, 0o660, 0o602, 0o620, 0o666])
    func loosePermissionsRefused(_ mode: Int) throws {
        let path = try Self.temporaryFile(Self.json([("a", "active", Self.good)]), mode: mode)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(Self.code { () throws(KeyringError) in _ = try Keyring(contentsOfFile: path) } == .insecurePermissions)
    }

    @Test("a production keyring with owner-only permissions is accepted", arguments: [0o600, 0o400])
    func ownerOnlyAccepted(_ mode: Int) throws {
        let path = try Self.temporaryFile(Self.json([("a", "active", Self.good)]), mode: mode)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let keyring = try Keyring(contentsOfFile: path)
        #expect(keyring.signingKey?.kid == "a")
    }

    @Test("a development keyring may be world-readable; a keyring without the flag counts as production")
    func developmentPermissions() throws {
        let development = try Self.temporaryFile(Self.json([("a", "active", Self.good)], development: true), mode: 0o644)
        let unflagged = try Self.temporaryFile(Self.json([("a", "active", Self.good)], development: nil), mode: 0o644)
        defer {
            try? FileManager.default.removeItem(atPath: development)
            try? FileManager.default.removeItem(atPath: unflagged)
        }
        #expect(try Keyring(contentsOfFile: development).isDevelopment)
        #expect(Self.code { () throws(KeyringError) in _ = try Keyring(contentsOfFile: unflagged) } == .insecurePermissions)
    }

    @Test("the signing key is the last active key")
    func signingKeyIsLastActive() throws {
        let keyring = try Keyring(json: Self.json([
            ("first", "active", Self.secretText(32, fill: 1)),
            ("second", "active", Self.secretText(32, fill: 2)),
            ("retired", "verify-only", Self.secretText(32, fill: 3)),
            ("gone", "revoked", Self.secretText(32, fill: 4)),
        ]))
        #expect(keyring.signingKey?.kid == "second")
        let noActive = try Keyring(json: Self.json([("retired", "verify-only", Self.good), ("gone", "revoked", Self.secretText(32, fill: 4))]))
        #expect(noActive.signingKey == nil)
    }

    @Test("writing replaces any existing file with a 0600 file that loads back to the same keys")
    func writeRoundTrip() throws {
        let keyring = try Keyring(json: Self.json([("a", "verify-only", Self.secretText(32, fill: 5)), ("b", "active", Self.secretText(64, fill: 6))]))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyring-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("keys.json").path
        try Data("loose and stale".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let rotated = try keyring.adding(KeyringKey(kid: "c", status: .active, secret: KeySecret(bytes: Array(repeating: 8, count: 32))))
        for keyring in [keyring, rotated] {
            try keyring.write(toFile: path)
            let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).intValue
            #expect(mode & 0o777 == 0o600)
            let loaded = try Keyring(contentsOfFile: path)
            #expect(loaded.keys == keyring.keys)
            #expect(loaded.isDevelopment == keyring.isDevelopment)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["keys.json"])
    }

    @Test("a secret, a key and a keyring never print the secret bytes")
    func secretsRedacted() throws {
        let bytes = (0..<32).map { UInt8($0 * 5 + 3) }
        let secret = try KeySecret(bytes: bytes)
        let key = try KeyringKey(kid: "k", status: .active, secret: secret)
        let keyring = try Keyring(keys: [key], isDevelopment: false)
        let texts = [String(describing: secret), String(reflecting: secret), "\(secret)", String(describing: key), String(reflecting: key), String(describing: keyring)]
        let forms = [Hex.encode(bytes), ReferenceBase64URL.encode(bytes), ReferenceBase64URL.standardBase64(bytes), Hex.encode(bytes.prefix(6)), ReferenceBase64URL.encode(Array(bytes.prefix(9)))]
        for text in texts {
            for form in forms {
                #expect(!text.contains(form), "\(text)")
            }
            #expect(!text.contains(bytes.map(String.init).prefix(6).joined(separator: ", ")))
        }
        #expect(secret.description == "KeySecret(32 bytes, redacted)")
    }

    @Test("the shipped development keyring has one active and one verify-only key and is marked development")
    func developmentKeyring() throws {
        let keyring = try Keyring(contentsOfFile: RepositoryFile.developmentKeyring)
        #expect(keyring.isDevelopment)
        #expect(keyring.keys.count == 2)
        #expect(keyring.keys.filter { $0.status == .active }.count == 1)
        #expect(keyring.keys.filter { $0.status == .verifyOnly }.count == 1)
        #expect(keyring.signingKey?.kid == "dev-2026-11")
        #expect(keyring.keys.allSatisfy { $0.secret.bytes.count >= 32 })
    }

    @Test("rotation: adding a key and retiring one keep kids unique and statuses as set")
    func rotation() throws {
        let keyring = try Keyring(json: Self.json([("a", "active", Self.good)]))
        let rotated = try keyring.adding(KeyringKey(kid: "b", status: .active, secret: KeySecret(bytes: Array(repeating: 9, count: 32))))
            .setting(.verifyOnly, forKeyID: "a")
        #expect(rotated.signingKey?.kid == "b")
        #expect(rotated.key(kid: "a")?.status == .verifyOnly)
        #expect(Self.code { () throws(KeyringError) in _ = try rotated.adding(KeyringKey(kid: "a", status: .active, secret: KeySecret(bytes: Array(repeating: 1, count: 32)))) } == .duplicateKeyID)
        #expect(Self.code { () throws(KeyringError) in _ = try rotated.setting(.revoked, forKeyID: "zz") } == .unknownKeyID)
    }
}
