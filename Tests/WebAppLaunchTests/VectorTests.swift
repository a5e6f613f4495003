import Foundation
import Testing
@testable import WebAppLaunch
import WebAppRegistry

extension VectorFile.Vector: CustomTestStringConvertible {
    var testDescription: String { "\(name): \(description)" }
}

extension VectorFile.Negative: CustomTestStringConvertible {
    var testDescription: String { "\(name): \(description)" }
}

extension VectorFile.Session: CustomTestStringConvertible {
    var testDescription: String { name }
}

@Suite("The Python reference vectors match byte for byte, both ways", .tags(.knownAnswer))
struct VectorTests {
    static let file = VectorFile.shared

    static func keyring(secretHex: String, kid: String) throws -> Keyring {
        try Keyring(keys: [KeyringKey(kid: kid, status: .active, secret: KeySecret(bytes: Hex.decode(secretHex)))], isDevelopment: false)
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
        let app = try WebApp(id: inputs.app_id, title: "Vector", url: RegisteredURL(inputs.registered_url))
        let signer = LaunchSigner(keyring: keyring, registry: try Registry(apps: [app]))
        let mode = try #require(LaunchMode(name: inputs.mode))
        let user = LaunchUser(accessToken: inputs.user.access_token, firstName: inputs.user.firstname, lastName: inputs.user.lastname, kvnumber: inputs.user.kvnumber)
        let randomness = LaunchSigner.FixedRandomness(nonce: Hex.decode(inputs.nonce_hex), iv: inputs.iv_hex.map(Hex.decode) ?? [])
        let minted = try signer.mint(for: app, user: user, mode: mode, lifetime: inputs.lifetime, now: inputs.iat, randomness: randomness)

        let derived = try #require(keyring.derivedKeys(kid: inputs.kid))
        let expected = vector.intermediates
        #expect(Hex.encode(derived.macKeyBytes) == expected.mac_key_hex)
        #expect(Hex.encode(derived.seal) == expected.seal_key_hex)
        #expect(Hex.encode(derived.session) == expected.session_key_hex)
        let secret = Hex.decode(inputs.secret_hex)
        #expect(Hex.encode(try HKDF.deriveKey(secret: secret, info: Array("WebAppLaunch-v1 replay key".utf8), count: 32)) == expected.replay_key_hex)
        #expect(app.url.description == expected.audience)
        #expect(Hex.encode(minted.claimsBlock) == expected.claims_block_hex)
        #expect(Hex.encode(minted.headerBytes) == expected.header_hex)
        #expect(Hex.encode(minted.body) == expected.body_hex)
        #expect(Hex.encode(minted.macInput) == expected.mac_input_hex)
        #expect(Hex.encode(minted.mac) == expected.mac_hex)
        #expect(minted.token == vector.expected.token)
        #expect(LaunchSigner.launchURL(audience: app.url, token: minted.token) == vector.expected.launch_url)
    }

    @Test("verifying the vector's launch URL at its issue time gives exactly its claims", arguments: file.vectors)
    func verify(_ vector: VectorFile.Vector) throws {
        let inputs = vector.inputs
        let keyring = try Self.keyring(secretHex: inputs.secret_hex, kid: inputs.kid)
        let verifier = LaunchVerifier(keyring: keyring, appID: inputs.app_id, audiences: [try RegisteredURL(inputs.registered_url)])
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
        #expect(launch.replayDeadline == vector.intermediates.exp + 60)
    }

    @Test("the vector's token decodes to header, body length, body and MAC as the intermediates state", arguments: file.vectors)
    func layout(_ vector: VectorFile.Vector) throws {
        let blob = try #require(Base64URL.decode(vector.expected.token))
        let header = Hex.decode(vector.intermediates.header_hex)
        let body = Hex.decode(vector.intermediates.body_hex)
        let count = UInt32(body.count)
        #expect(blob == header + TokenForge.bigEndian(count) + body + Hex.decode(vector.intermediates.mac_hex))
        #expect(Hex.decode(vector.intermediates.mac_input_hex) == Array("WebAppLaunch-v1 token".utf8) + blob.dropLast(32))
        let parsed = try TokenLayout.parse(blob)
        #expect(Array(parsed.headerBytes) == header)
        #expect(Array(parsed.body) == body)
    }

    @Test("negative vectors are rejected with exactly the stated code (or accepted when none is stated)", arguments: file.negative)
    func negative(_ vector: VectorFile.Negative) throws {
        let keyring = try Self.keyring(secretHex: vector.secret_hex, kid: vector.kid)
        let verifier = LaunchVerifier(keyring: keyring, appID: vector.app_id, audiences: [try RegisteredURL(vector.registered_url)])
        let row: AttackRow
        if let query = vector.query {
            row = AttackRow(vector.name, .request(query: query, form: nil), now: vector.now, verifier: verifier, expect: vector.expected_error.map(LaunchError.Code.init(rawValue:)))
        } else {
            let token = try #require(vector.token)
            row = .token(vector.name, token, now: vector.now, verifier: verifier, expect: vector.expected_error.map(LaunchError.Code.init(rawValue:)))
        }
        row.check()
    }

    @Test("session cookies sealed by the Python reference open to their payload", arguments: file.sessions)
    func session(_ vector: VectorFile.Session) throws {
        let keyring = try Self.keyring(secretHex: vector.secret_hex, kid: vector.kid)
        #expect(Hex.encode(try #require(keyring.derivedKeys(kid: vector.kid)).session) == vector.session_key_hex)
        let opened = SessionSealer(keyring: keyring).open(vector.cookie)
        #expect(opened.map(Hex.encode) == vector.payload_hex)
        var tampered = try #require(Base64URL.decode(vector.cookie))
        tampered[tampered.count - 1] ^= 1
        #expect(SessionSealer(keyring: keyring).open(Base64URL.encode(tampered)) == nil)
    }
}
