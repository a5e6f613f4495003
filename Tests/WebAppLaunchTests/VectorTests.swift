import Foundation
import Testing
@_spi(Testing) @testable import WebAppLaunch
import WebAppRegistry

extension VectorFile.Vector: CustomTestStringConvertible {
    var testDescription: String { "\(name): \(description)" }
}

extension VectorFile.Negative: CustomTestStringConvertible {
    var testDescription: String { "\(name): \(description)" }
}

extension VectorFile.Session: CustomTestStringConvertible {
    var testDescription: String { "\(name): \(description)" }
}

@Suite("The Python reference vectors match byte for byte, both ways", .tags(.knownAnswer))
struct VectorTests {
    static let file = VectorFile.shared

    static func keyring(secretHex: String, kid: String) throws -> Keyring {
        try Keyring(keys: [KeyringKey(kid: kid, status: .active, secret: KeySecret(bytes: Hex.decode(secretHex)))], isDevelopment: false)
    }

    /// The keyring a vector describes: launcher (root secrets) or app (app keys).
    static func keyring(_ spec: VectorFile.KeyringSpec) throws -> Keyring {
        let keys = try spec.keys.map { key in
            let status = try #require(KeyStatus(rawValue: key.status))
            let hex = try #require(spec.kind == "app" ? key.app_key_hex : key.secret_hex)
            return try KeyringKey(kid: key.kid, status: status, secret: KeySecret(bytes: Hex.decode(hex)))
        }
        if spec.kind == "app" {
            return try Keyring(appKeys: keys, forApp: try #require(spec.app), isDevelopment: false)
        }
        #expect(spec.kind == "launcher")
        return try Keyring(keys: keys, isDevelopment: false)
    }

    @Test("the vectors file holds at least 12 positive vectors in both modes, and negative ones")
    func coverage() {
        #expect(Self.file.vectors.count >= 12)
        #expect(Set(Self.file.vectors.map(\.inputs.mode)) == ["signed", "sealed"])
        #expect(Self.file.negative.count >= 10)
        #expect(Self.file.vectors.contains { $0.inputs.user.access_token.utf8.count >= 4096 })
        #expect(Self.file.vectors.contains { $0.inputs.registered_url.contains("?") })
    }

    @Test("minting with the vector's nonce and IV gives exactly its intermediates, token and launch URL", arguments: file.vectors)
    func mint(_ vector: VectorFile.Vector) throws {
        let inputs = vector.inputs
        let keyring = try Self.keyring(secretHex: inputs.secret_hex, kid: inputs.kid)
        let webApp = try WebApp(id: inputs.app_id, title: "Vector", url: RegisteredURL(inputs.registered_url))
        let signer = try LaunchSigner(keyring: keyring, registry: try Registry(apps: [webApp]))
        let mode = try #require(LaunchMode(name: inputs.mode))
        let user = LaunchUser(accessToken: inputs.user.access_token, firstName: inputs.user.firstname, lastName: inputs.user.lastname, kvnumber: inputs.user.kvnumber)
        let randomness = LaunchSigner.FixedRandomness(nonce: Hex.decode(inputs.nonce_hex), iv: inputs.iv_hex.map(Hex.decode) ?? [])
        let minted = try signer.mint(for: webApp, user: user, mode: mode, lifetime: inputs.lifetime, now: inputs.iat, randomness: randomness)

        let derived = try #require(try keyring.appKeys(for: inputs.app_id).entry(kid: inputs.kid)).derived
        let expected = vector.intermediates
        #expect(Hex.encode(derived.appKey) == expected.app_key_hex)
        // The MAC and replay keys are not kept as bytes by the code: derived here from the app key.
        #expect(Hex.encode(try HKDF.deriveKey(secret: derived.appKey, info: Labels.macKey, count: 32)) == expected.mac_key_hex)
        #expect(Hex.encode(derived.seal.bytes) == expected.seal_key_hex)
        #expect(Hex.encode(derived.session.bytes) == expected.session_key_hex)
        #expect(Hex.encode(try HKDF.deriveKey(secret: derived.appKey, info: Labels.replayKey, count: 32)) == expected.replay_key_hex)
        // The app key, computed here from SPEC.md §2.2 rather than by the code under test.
        let app = Array(inputs.app_id.utf8)
        let info = Array("WebAppLaunch-v2 app key".utf8) + [UInt8(app.count)] + app
        #expect(Hex.encode(try HKDF.deriveKey(secret: Hex.decode(inputs.secret_hex), info: info, count: 32)) == expected.app_key_hex)
        #expect(webApp.url.description == expected.audience)
        #expect(Hex.encode(minted.claimsBlock) == expected.claims_block_hex)
        #expect(Hex.encode(minted.headerBytes) == expected.header_hex)
        #expect(Hex.encode(minted.body) == expected.body_hex)
        #expect(Hex.encode(minted.macInput) == expected.mac_input_hex)
        #expect(Hex.encode(minted.mac) == expected.mac_hex)
        #expect(minted.token == vector.expected.token)
        #expect(LaunchSigner.launchURL(audience: webApp.url, token: minted.token) == vector.expected.launch_url)
    }

    @Test("verifying the vector's launch URL at its issue time gives exactly its claims, with the launcher keyring and with the exported app keyring", arguments: file.vectors, [false, true])
    func verify(_ vector: VectorFile.Vector, withAppKeyring: Bool) throws {
        let inputs = vector.inputs
        var keyring = try Self.keyring(secretHex: inputs.secret_hex, kid: inputs.kid)
        if withAppKeyring {
            keyring = try keyring.exportingApp(inputs.app_id)
            #expect(keyring.keys.map { Hex.encode($0.secret.bytes) } == [vector.intermediates.app_key_hex])
        }
        let verifier = try LaunchVerifier(keyring: keyring, appID: inputs.app_id, audiences: [try RegisteredURL(inputs.registered_url)])
        let now = Date(timeIntervalSince1970: Double(inputs.iat))
        let launch = try verifier.verify(url: vector.expected.launch_url, now: now)
        let fromToken = try verifier.verify(token: vector.expected.token, now: now)
        #expect(launch == fromToken)
        let claims = vector.expected.claims
        #expect(launch.claims.accessToken == claims.access_token)
        #expect(Array(launch.claims.firstName.utf8) == Array(claims.firstname.utf8))
        #expect(Array(launch.claims.lastName.utf8) == Array(claims.lastname.utf8))
        #expect(launch.claims.kvnr.value == claims.kvnumber)
        #expect(launch.header.kid == inputs.kid)
        #expect(launch.header.mode.description == inputs.mode)
        #expect(launch.header.issuedAt == inputs.iat)
        #expect(launch.header.expiresAt == vector.intermediates.exp)
        #expect(Hex.encode(launch.header.nonce) == inputs.nonce_hex)
        #expect(launch.header.appID == inputs.app_id)
        #expect(launch.header.audience == vector.intermediates.audience)
        #expect(launch.replayID.hex == vector.intermediates.replay_id_hex)
        #expect(launch.replayDeadline == vector.intermediates.exp + 600 + 300, "SPEC.md: kept until exp + 600 + 300")
    }

    @Test("the vector's token decodes to header, body length, body and MAC as the intermediates state", arguments: file.vectors)
    func layout(_ vector: VectorFile.Vector) throws {
        let blob = try #require(Base64URL.decode(vector.expected.token))
        let header = Hex.decode(vector.intermediates.header_hex)
        let body = Hex.decode(vector.intermediates.body_hex)
        let count = UInt32(body.count)
        #expect(blob == header + TokenForge.bigEndian(count) + body + Hex.decode(vector.intermediates.mac_hex))
        #expect(Hex.decode(vector.intermediates.mac_input_hex) == Array("WebAppLaunch-v2 token".utf8) + blob.dropLast(32))
        let parsed = try TokenLayout.parse(blob)
        #expect(Array(parsed.headerBytes) == header)
        #expect(Array(parsed.body) == body)
    }

    @Test("negative vectors are rejected with exactly the stated code (or accepted when none is stated)", arguments: file.negative)
    func negative(_ vector: VectorFile.Negative) throws {
        let keyring = try Self.keyring(vector.keyring)
        let verifier = try LaunchVerifier(keyring: keyring, appID: vector.app_id, audiences: [try RegisteredURL(vector.registered_url)])
        let expected = vector.expected_error.map(LaunchError.Code.init(rawValue:))
        let row: AttackRow
        if let url = vector.url {
            row = AttackRow(vector.name, .url(url), now: vector.now, verifier: verifier, expect: expected)
        } else if vector.query != nil || vector.form != nil {
            row = AttackRow(vector.name, .request(query: vector.query, form: vector.form), now: vector.now, verifier: verifier, expect: expected)
        } else {
            let token = try #require(vector.token)
            row = .token(vector.name, token, now: vector.now, verifier: verifier, expect: expected)
        }
        row.check()
    }

    @Test("every verification error code a verifier alone can give has a negative vector")
    func everyCodeHasAVector() {
        let codes = Set(Self.file.negative.compactMap(\.expected_error))
        let expected: Set<String> = [
            "malformed", "too_large", "unsupported_version", "unsupported_mode", "unknown_key", "revoked_key",
            "bad_signature", "invalid_lifetime", "lifetime_too_long", "not_yet_valid", "expired", "wrong_audience",
            "wrong_app", "unexpected_parameters", "invalid_claims",
        ]
        #expect(codes == expected)
        #expect(Self.file.negative.contains { $0.form != nil && $0.expected_error == nil })
        #expect(Self.file.negative.contains { $0.keyring.kind == "app" })
        #expect(Self.file.sessions.contains { $0.payload == nil })
    }

    static func fields(_ session: SessionPayload) -> VectorFile.SessionFields {
        VectorFile.SessionFields(
            expires_at: session.expiresAt, app: session.appID, kid: session.kid, launch_id_hex: session.launchID.hex,
            firstname: session.firstName, lastname: session.lastName, kvnumber: session.kvnumber, access_token: session.accessToken
        )
    }

    @Test("session cookies of the Python reference open to exactly their payload, or to no session; sealing with the vector's IV gives exactly the cookie", arguments: file.sessions)
    func session(_ vector: VectorFile.Session) throws {
        let keyring = try Self.keyring(vector.keyring)
        let sealer = try SessionSealer(keyring: keyring, appID: vector.app_id)
        let opened = sealer.openSession(vector.cookie, now: vector.now)
        #expect(opened.map(Self.fields) == vector.payload)
        guard let payload = vector.payload else { return }
        let session = try #require(opened)
        #expect(Hex.encode(session.encoded()) == vector.payload_hex)
        guard let ivHex = vector.iv_hex else { return }
        let derived = try #require(try keyring.appKeys(for: vector.app_id).signing).derived
        #expect(Hex.encode(derived.appKey) == vector.app_key_hex)
        #expect(Hex.encode(derived.session.bytes) == vector.session_key_hex)
        let rebuilt = try SessionPayload(
            expiresAt: payload.expires_at, appID: payload.app, kid: payload.kid,
            launchID: try #require(ReplayID(bytes: Hex.decode(payload.launch_id_hex))),
            firstName: payload.firstname, lastName: payload.lastname, kvnumber: payload.kvnumber, accessToken: payload.access_token
        )
        #expect(try sealer.sealSession(rebuilt, iv: Hex.decode(ivHex)) == vector.cookie)
        var tampered = try #require(Base64URL.decode(vector.cookie))
        tampered[tampered.count - 1] ^= 1
        #expect(sealer.openSession(Base64URL.encode(tampered), now: vector.now) == nil)
        // Bound to its app: the same keyring's sealer for another app opens nothing.
        let otherApp = String(vector.app_id.dropLast()) + (vector.app_id.hasSuffix("x") ? "y" : "x")
        #expect(try SessionSealer(keyring: keyring, appID: otherApp).open(vector.cookie) == nil)
    }
}
