import Foundation
import Testing
@testable import WebAppLaunch
import WebAppLaunchTestSupport

/// Issue 12, finding 10: the shipped development secrets are public, so a keyring holding one
/// is development whatever its `"development"` flag says, and every guard that refuses
/// development keys off loopback applies to it.
@Suite("Published development secrets are recognised by fingerprint, whatever the flag says")
struct PublishedDevelopmentKeyTests {
    /// The shipped development keyring, `keys/dev.keyring.json`.
    static let shippedPath = repositoryRoot.appendingPathComponent("keys/dev.keyring.json").path

    /// The shipped keyring's JSON with its `development` member replaced by `flag` (or removed).
    static func shippedJSON(development flag: Bool?) throws -> Data {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: shippedPath))) as? [String: Any])
        if let flag { object["development"] = flag } else { object.removeValue(forKey: "development") }
        return try JSONSerialization.data(withJSONObject: object)
    }

    @Test("a copy of the shipped keyring without the flag, or with it false, loads from a 0600 file as development", .tags(.securityRegression), arguments: [nil, false] as [Bool?])
    func copyIsDevelopment(flag: Bool?) throws {
        let path = try KeyringTests.temporaryFile(try Self.shippedJSON(development: flag), mode: 0o600)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let keyring = try Keyring(contentsOfFile: path)
        #expect(keyring.isDevelopment)
        #expect(try Keyring(json: try Self.shippedJSON(development: flag)).isDevelopment)
    }

    @Test("one shipped secret among fresh ones makes the keyring development, under any kid and status", .tags(.securityRegression), arguments: KeyStatus.allCases)
    func oneSecretSuffices(status: KeyStatus) throws {
        let shipped = try Keyring(contentsOfFile: Self.shippedPath)
        for published in shipped.keys {
            let keys = [
                try KeyringKey(kid: "fresh-1", status: .active, secret: try KeySecret.generate()),
                try KeyringKey(kid: "renamed", status: status, secret: published.secret),
            ]
            #expect(try Keyring(keys: keys, isDevelopment: false).isDevelopment)
            #expect(try Keyring(keys: [keys[0]], isDevelopment: false).adding(keys[1]).isDevelopment)
        }
    }

    @Test("every secret of the shipped keyring is in the published list (regenerating it needs the list updated)")
    func listCoversShippedKeyring() throws {
        let shipped = try Keyring(contentsOfFile: Self.shippedPath)
        #expect(!shipped.keys.isEmpty)
        for key in shipped.keys {
            #expect(PublishedDevelopmentSecrets.contains(key.secret), "\(key.kid)")
        }
    }

    @Test("fresh random secrets are production keys when the flag says so")
    func freshIsProduction() throws {
        let key = try KeyringKey(kid: "prod", status: .active, secret: try KeySecret.generate())
        #expect(try !Keyring(keys: [key], isDevelopment: false).isDevelopment)
        #expect(!PublishedDevelopmentSecrets.contains(key.secret))
    }

    @Test("an app keyring derived from the shipped secrets is development for any app id, flag or no flag (issue 29)", .tags(.securityRegression), arguments: ["healthmagazin", "bonusprogramm", "zzz-any.app"])
    func derivedAppKeysAreDevelopment(appID: String) throws {
        let shipped = try Keyring(contentsOfFile: Self.shippedPath)
        let exported = try shipped.exportingApp(appID)
        #expect(exported.isDevelopment)
        let flagless = try Keyring(appKeys: exported.keys, forApp: appID, isDevelopment: false)
        #expect(flagless.isDevelopment, "removing the flag does not make public keys private")
        // A production launcher's export is production.
        let production = try Keyring(keys: [KeyringKey(kid: "prod", status: .active, secret: try KeySecret.generate())], isDevelopment: false)
        #expect(!(try production.exportingApp(appID)).isDevelopment)
    }
}
