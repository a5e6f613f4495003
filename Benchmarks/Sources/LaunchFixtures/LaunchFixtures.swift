import CBenchCrypto
import Foundation
@_spi(Testing) import WebAppLaunch
import WebAppRegistry

/// Everything the benchmarks and tools share: the development keyring, the sample registry,
/// a typical user (1 KB access token, ordinary names, a valid KVNR) and tokens minted from them.
public enum LaunchFixtures {
    /// The repository root (this file is Benchmarks/Sources/LaunchFixtures/LaunchFixtures.swift),
    /// or `WEBAPPLAUNCH_ROOT` when set.
    public static let repositoryRoot: String = {
        if let root = ProcessInfo.processInfo.environment["WEBAPPLAUNCH_ROOT"], !root.isEmpty { return root }
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    public static let keyringPath = repositoryRoot + "/keys/dev.keyring.json"
    public static let registryPath = repositoryRoot + "/keys/registry.sample.json"

    /// The app every launch is for.
    public static let appID = "healthmagazin"

    /// A typical launch: a 1024-byte access token (visible ASCII, JWT-like alphabet), ordinary names.
    public static let user: LaunchUser = {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.".utf8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var token = [UInt8]()
        token.reserveCapacity(1024)
        for _ in 0..<1024 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            token.append(alphabet[Int(state >> 33) % alphabet.count])
        }
        return LaunchUser(
            accessToken: String(decoding: token, as: UTF8.self),
            firstName: "Erika",
            lastName: "Mustermann",
            kvnumber: "T012345678"
        )
    }()

    public static func keyring() throws -> Keyring { try Keyring(contentsOfFile: keyringPath) }
    public static func registry() throws -> Registry { try Registry(contentsOfFile: registryPath) }

    /// The secret of the keyring's active (signing) key, read from the keyring file.
    public static func signingSecret() throws -> (kid: String, secret: [UInt8]) {
        struct File: Decodable {
            struct Key: Decodable { let kid: String; let status: String; let secret: String }
            let keys: [Key]
        }
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: URL(fileURLWithPath: keyringPath)))
        guard let key = file.keys.last(where: { $0.status == "active" }), let secret = Base64URL.decode(key.secret) else {
            throw FixtureError("no active key in \(keyringPath)")
        }
        return (key.kid, secret)
    }

    /// The token MAC key of an app, derived exactly as SPEC.md 2.2 and 2.3 state: the app
    /// key from the root secret and the length-prefixed app id, the MAC key from the app key.
    public static func macKey(secret: [UInt8], appID: String) throws -> [UInt8] {
        let app = Array(appID.utf8)
        let appKey = try hkdf(secret, info: Array("WebAppLaunch-v2 app key".utf8) + [UInt8(app.count)] + app)
        return try hkdf(appKey, info: Array("WebAppLaunch-v2 mac key".utf8))
    }

    private static func hkdf(_ secret: [UInt8], info: [UInt8]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let ok = secret.withUnsafeBufferPointer { s in
            info.withUnsafeBufferPointer { i in
                out.withUnsafeMutableBufferPointer { o in
                    bench_hkdf_sha256(s.baseAddress, s.count, i.baseAddress, i.count, o.baseAddress, o.count)
                }
            }
        }
        guard ok == 1 else { throw FixtureError("HKDF failed") }
        return out
    }

    /// The MAC input of a token (SPEC.md 6): the label followed by the decoded token without its MAC.
    public static func macInput(ofToken token: String) throws -> (input: [UInt8], mac: [UInt8]) {
        guard let blob = Base64URL.decode(token), blob.count > 32 else { throw FixtureError("not a token") }
        return (Array("WebAppLaunch-v2 token".utf8) + blob.dropLast(32), Array(blob.suffix(32)))
    }
}

/// A keyed HMAC-SHA256 context reused for every MAC: the raw OpenSSL floor.
public final class RawKeyedHMAC {
    private let context: OpaquePointer
    public private(set) var output = [UInt8](repeating: 0, count: 32)

    public init(key: [UInt8]) throws {
        guard let context = key.withUnsafeBufferPointer({ bench_hmac_sha256_new($0.baseAddress, $0.count) }) else {
            throw FixtureError("EVP_MAC init failed")
        }
        self.context = context
    }

    deinit { EVP_MAC_CTX_free(context) }

    /// HMAC of `message` into `output` (no allocation).
    @inline(__always)
    public func mac(_ message: UnsafeBufferPointer<UInt8>) -> Bool {
        output.withUnsafeMutableBufferPointer { out in
            bench_hmac_sha256(context, message.baseAddress, message.count, out.baseAddress) == 1
        }
    }
}

public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
