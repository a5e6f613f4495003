import Testing
@testable import WebAppLaunch

@Suite("HKDF-SHA256 through OpenSSL matches RFC 5869", .tags(.knownAnswer))
struct HKDFTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let number: Int
        let ikm: [UInt8]
        let salt: [UInt8]
        let info: [UInt8]
        let okm: String
        var testDescription: String { "RFC 5869 test case \(number)" }
    }

    static let cases: [Case] = [
        Case(number: 1, ikm: Array(repeating: 0x0B, count: 22), salt: Array(0x00...0x0C), info: Array(0xF0...0xF9),
             okm: "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
        Case(number: 2, ikm: Array(0x00...0x4F), salt: Array(0x60...0xAF), info: Array(0xB0...0xFF),
             okm: "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"),
        Case(number: 3, ikm: Array(repeating: 0x0B, count: 22), salt: [], info: [],
             okm: "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
    ]

    @Test("each RFC 5869 SHA-256 case gives the published output keying material", arguments: cases)
    func rfc5869(_ testCase: Case) throws {
        let okm = try HKDF.deriveKey(secret: testCase.ikm, salt: testCase.salt, info: testCase.info, count: testCase.okm.count / 2)
        #expect(Hex.encode(okm) == testCase.okm)
    }

    @Test("the four purpose labels derive four different keys from one app key")
    func labelsSeparateKeys() throws {
        let secret = Array(repeating: UInt8(0x42), count: 32)
        let labels = ["mac key", "seal key", "session key", "replay key"].map { Array("WebAppLaunch-v2 \($0)".utf8) }
        let keys = try labels.map { try HKDF.deriveKey(secret: secret, info: $0, count: 32) }
        #expect(Set(keys.map(Hex.encode)).count == 4)
        #expect(labels == [Labels.macKey, Labels.sealKey, Labels.sessionKey, Labels.replayKey])
        #expect(Labels.tokenMAC == Array("WebAppLaunch-v2 token".utf8))
        #expect(Labels.session == Array("WebAppLaunch-v2 session".utf8))
    }
}
