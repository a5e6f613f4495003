import Foundation
@_spi(Testing) @testable import WebAppLaunch
import WebAppLaunchNative
import WebAppRegistry

/// Stops the fuzzer with a crash: an invariant of the library does not hold.
/// The message names the invariant only, never key material.
public func violation(_ message: String) -> Never {
    fatalError("INVARIANT VIOLATED: \(message)")
}

/// Paths inside the main package, found from this file's location at compile time.
public enum Paths {
    /// `/work/main` (the main package's root).
    public static let mainPackage: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent() // FuzzSupport
        .deletingLastPathComponent() // Sources
        .deletingLastPathComponent() // Fuzz
        .deletingLastPathComponent() // main
    public static let vectors = mainPackage.appendingPathComponent("Tests/WebAppLaunchTests/Vectors/vectors.json")
    public static let sampleRegistry = mainPackage.appendingPathComponent("keys/registry.sample.json")
    public static let devKeyring = mainPackage.appendingPathComponent("keys/dev.keyring.json")
}

/// One verifier set-up: a keyring with the right key (active), a verify-only key and a revoked
/// key; one app at one registered URL; a fixed clock.
public struct VerifierConfig: Sendable {
    public let name: String
    public let keyring: Keyring
    public let app: WebApp
    public let registry: Registry
    public let verifier: LaunchVerifier
    public let now: Date
    public let activeKid: String
    /// One signer per usable kid, each holding only that key (as `active`): the parties that
    /// legitimately produce tokens for this verifier.
    let signers: [String: LaunchSigner]
    /// Sorted raw query pieces of the registered URL.
    let registeredPieces: [[UInt8]]
    /// Seeds from the test vectors (token texts and launch URL queries).
    public let seedTokens: [String]
    public let seedQueries: [String]
}

func hexBytes(_ hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var chars = Array(hex.utf8)[...]
    while chars.count >= 2 {
        let pair = String(decoding: chars.prefix(2), as: UTF8.self)
        out.append(UInt8(pair, radix: 16)!)
        chars = chars.dropFirst(2)
    }
    return out
}

public enum Fixtures {
    /// The verifier set-ups: every positive and negative test vector, plus one whose
    /// registered query holds `K`, `;` and `` ` `` (ASCII characters that have non-ASCII
    /// canonical equivalents: U+212A, U+037E, U+1FEF).
    public static let configs: [VerifierConfig] = {
        let data = try! Data(contentsOf: Paths.vectors)
        let root = try! JSONSerialization.jsonObject(with: data) as! [String: Any]
        var out: [VerifierConfig] = []
        for vector in root["vectors"] as! [[String: Any]] {
            let inputs = vector["inputs"] as! [String: Any]
            let expected = vector["expected"] as! [String: Any]
            let url = expected["launch_url"] as! String
            let query = String(url[url.index(after: url.firstIndex(of: "?")!)...])
            out.append(make(
                name: vector["name"] as! String, secret: hexBytes(inputs["secret_hex"] as! String),
                kid: inputs["kid"] as! String, appID: inputs["app_id"] as! String,
                url: inputs["registered_url"] as! String, now: (inputs["iat"] as! NSNumber).uint64Value,
                tokens: [expected["token"] as! String], queries: [query]))
        }
        for vector in root["negative"] as! [[String: Any]] {
            // Seeds from the launcher-keyring vectors whose registered URL parses; app-keyring
            // vectors and deliberately broken registrations have no verifier set-up here.
            guard let keyring = vector["keyring"] as? [String: Any], keyring["kind"] as? String == "launcher",
                  let key = (keyring["keys"] as? [[String: Any]])?.first(where: { $0["status"] as? String == "active" }),
                  let secretHex = key["secret_hex"] as? String, let kid = key["kid"] as? String,
                  let url = vector["registered_url"] as? String, (try? RegisteredURL(url)) != nil,
                  let appID = vector["app_id"] as? String, WebApp.isValidID(appID)
            else { continue }
            let token = vector["token"] as? String
            let query = vector["query"] as? String
            out.append(make(
                name: vector["name"] as! String, secret: hexBytes(secretHex),
                kid: kid, appID: appID,
                url: url, now: (vector["now"] as! NSNumber).uint64Value,
                tokens: token.map { [$0] } ?? [], queries: query.map { [$0] } ?? []))
        }
        // The canonical-equivalence set-up; its seeds are minted here with fixed randomness.
        var special = make(
            name: "equivalence", secret: Array(0..<48), kid: "eq-1", appID: "unit",
            url: "https://k.example/app?unit=K&sep=;&q=`", now: 1_795_000_000, tokens: [], queries: [])
        let user = LaunchUser(accessToken: "tok-K", firstName: "Kai", lastName: "Kelvin", kvnumber: "A123456780")
        var tokens: [String] = []
        for mode in [LaunchMode.signed, .sealed] {
            let minted = try! special.signers["eq-1"]!.mint(
                for: special.app, user: user, mode: mode, lifetime: 60, now: 1_795_000_000,
                randomness: .init(nonce: Array(repeating: 7, count: 16), iv: Array(repeating: 9, count: 12)))
            tokens.append(minted.token)
        }
        special = VerifierConfig(
            name: special.name, keyring: special.keyring, app: special.app, registry: special.registry,
            verifier: special.verifier, now: special.now, activeKid: special.activeKid, signers: special.signers,
            registeredPieces: special.registeredPieces, seedTokens: tokens,
            seedQueries: tokens.map { "unit=K&sep=;&q=`&launch=" + $0 })
        out.append(special)
        return out
    }()

    static func make(name: String, secret: [UInt8], kid: String, appID: String, url: String, now: UInt64, tokens: [String], queries: [String]) -> VerifierConfig {
        let old = try! KeyringKey(kid: "zz-old", status: .verifyOnly, secret: try! KeySecret(bytes: secret.reversed()))
        let revoked = try! KeyringKey(kid: "zz-revoked", status: .revoked, secret: try! KeySecret(bytes: secret.map { $0 ^ 0x5A }))
        let right = try! KeyringKey(kid: kid, status: .active, secret: try! KeySecret(bytes: secret))
        let keyring = try! Keyring(keys: [old, revoked, right], isDevelopment: false)
        let app = try! WebApp(id: appID, title: appID, url: try! RegisteredURL(url))
        let registry = try! Registry(apps: [app])
        var signers: [String: LaunchSigner] = [:]
        for key in [old, right] {
            let only = try! Keyring(keys: [try! KeyringKey(kid: key.kid, status: .active, secret: key.secret)], isDevelopment: false)
            signers[key.kid] = try! LaunchSigner(keyring: only, registry: registry)
        }
        let pieces = (app.url.query.map { Array($0.utf8).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).map(Array.init) } ?? [])
            .sorted { $0.lexicographicallyPrecedes($1) }
        return VerifierConfig(
            name: name, keyring: keyring, app: app, registry: registry,
            verifier: try! LaunchVerifier(keyring: keyring, app: app),
            now: Date(timeIntervalSince1970: TimeInterval(now)), activeKid: kid, signers: signers,
            registeredPieces: pieces, seedTokens: tokens, seedQueries: queries)
    }

    /// The sample registry of the repository (keys/registry.sample.json).
    public static let sampleRegistry: Registry = try! Registry(json: try! Data(contentsOf: Paths.sampleRegistry))
}

/// The verifier's invariant: a launch it accepted is exactly what the signer, holding the
/// right (usable) key of this verifier's keyring, produces for the same header fields,
/// claims, nonce and IV. Anything else accepted is a forgery or a non-canonical encoding.
public func checkAccepted(token: Substring, launch: VerifiedLaunch, config: VerifierConfig, otherQueryParameters: [Substring]?) {
    guard let blob = Base64URL.decode(token) else { violation("accepted a token that is not strict base64url") }
    guard Base64URL.encode(blob).utf8.elementsEqual(token.utf8) else { violation("accepted a non-canonical base64url text") }
    let header = launch.header
    guard let key = config.keyring.key(kid: header.kid), key.status.canVerify, let signer = config.signers[header.kid] else {
        violation("accepted a token under an unknown or revoked kid")
    }
    _ = key
    guard header.appID.utf8.elementsEqual(config.app.id.utf8) else { violation("accepted a token for another app") }
    guard header.audience.utf8.elementsEqual(config.app.url.description.utf8) else { violation("accepted a token for another audience") }
    let now = LaunchSigner.seconds(config.now)
    let skew = config.verifier.policy.clockSkew
    guard header.expiresAt > header.issuedAt, header.expiresAt - header.issuedAt <= config.verifier.policy.maximumLifetime else {
        violation("accepted a token with an invalid lifetime")
    }
    guard header.issuedAt <= now + skew, now < header.expiresAt + skew else { violation("accepted a token outside its time window") }
    if let otherQueryParameters {
        let pieces = otherQueryParameters.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        guard pieces == config.registeredPieces else {
            violation("accepted a request whose other parameters differ byte for byte from the registered URL's")
        }
    }
    let parsed: TokenLayout.Parsed
    do { parsed = try TokenLayout.parse(blob) } catch { violation("accepted a token that does not parse") }
    let iv = header.mode == .sealed ? Array(parsed.body.prefix(12)) : []
    let claims = launch.claims
    let user = LaunchUser(accessToken: claims.accessToken, firstName: claims.firstName, lastName: claims.lastName, kvnumber: claims.kvnr.value)
    let minted: LaunchSigner.Minted
    do {
        minted = try signer.mint(
            for: config.app, user: user, mode: header.mode, lifetime: header.expiresAt - header.issuedAt,
            now: header.issuedAt, randomness: .init(nonce: header.nonce, iv: iv))
    } catch {
        violation("accepted claims the signer refuses to mint (\(error.code))")
    }
    guard minted.token.utf8.elementsEqual(token.utf8) else {
        violation("accepted a token that the signer with the right key would not produce")
    }
}

/// Plays the key holder: appends the right MAC to a fuzzed blob prefix (the kid named in the
/// prefix if it is a usable key of the config, else the active one), so the fuzzer reaches
/// what the verifier does after the MAC check.
public func resign(_ prefix: [UInt8], config: VerifierConfig) -> String {
    var kid = config.activeKid
    if prefix.count >= 3 {
        let length = Int(prefix[2])
        if 3 + length <= prefix.count, let named = String(validating: prefix[3..<(3 + length)], as: UTF8.self),
           config.signers[named] != nil {
            kid = named
        }
    }
    let mac = try! config.keyring.appKeys(for: config.app.id).entry(kid: kid)!.derived.mac.authenticationCode(prefix: Labels.tokenMAC, message: prefix)
    return Base64URL.encode(prefix + mac)
}

/// Splits bytes on the first occurrence of `separator`.
public func splitOnce(_ bytes: ArraySlice<UInt8>, _ separator: UInt8) -> (ArraySlice<UInt8>, ArraySlice<UInt8>?) {
    guard let index = bytes.firstIndex(of: separator) else { return (bytes, nil) }
    return (bytes[..<index], bytes[(index + 1)...])
}

/// The bytes of a fuzz input, as an array slice.
public func inputBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> ArraySlice<UInt8> {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))[...]
}
