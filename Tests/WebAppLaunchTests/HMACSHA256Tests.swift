import Foundation
import Testing
@testable import WebAppLaunch

@Suite("HMAC-SHA256 through OpenSSL matches RFC 4231", .tags(.knownAnswer))
struct HMACSHA256Tests {
    struct Case: Sendable, CustomTestStringConvertible {
        let number: Int
        let key: [UInt8]
        let data: [UInt8]
        let mac: String
        var testDescription: String { "RFC 4231 test case \(number)" }
    }

    static let cases: [Case] = [
        Case(number: 1, key: Array(repeating: 0x0B, count: 20), data: Array("Hi There".utf8),
             mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Case(number: 2, key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
             mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Case(number: 3, key: Array(repeating: 0xAA, count: 20), data: Array(repeating: 0xDD, count: 50),
             mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Case(number: 4, key: Array(1...25), data: Array(repeating: 0xCD, count: 50),
             mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Case(number: 5, key: Array(repeating: 0x0C, count: 20), data: Array("Test With Truncation".utf8),
             mac: "a3b6167473100ee06e0c796c2955552b"),
        Case(number: 6, key: Array(repeating: 0xAA, count: 131), data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
             mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Case(number: 7, key: Array(repeating: 0xAA, count: 131),
             data: Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
             mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test("each RFC 4231 case gives the published MAC (case 5 compared on its first 128 bits)", arguments: cases)
    func rfc4231(_ testCase: Case) throws {
        let key = try HMACSHA256Key(key: testCase.key)
        let mac = try key.authenticationCode(message: testCase.data)
        #expect(mac.count == 32)
        #expect(Hex.encode(mac.prefix(testCase.mac.count / 2)) == testCase.mac)
    }

    @Test("a key used twice, and from a pooled context, gives the same MAC again", arguments: cases)
    func reuse(_ testCase: Case) throws {
        let key = try HMACSHA256Key(key: testCase.key)
        let first = try key.authenticationCode(message: testCase.data)
        let other = try key.authenticationCode(message: Array("something else".utf8))
        let second = try key.authenticationCode(message: testCase.data)
        #expect(first == second)
        #expect(first != other)
        #expect(Hex.encode(second.prefix(testCase.mac.count / 2)) == testCase.mac)
    }

    @Test("a prefix and a message are MACed as their concatenation, however they are split", arguments: cases)
    func prefixIsConcatenation(_ testCase: Case) throws {
        let key = try HMACSHA256Key(key: testCase.key)
        let whole = try key.authenticationCode(message: testCase.data)
        for split in [0, 1, testCase.data.count / 2, testCase.data.count] {
            let mac = try key.authenticationCode(prefix: Array(testCase.data.prefix(split)), message: Array(testCase.data.dropFirst(split)))
            #expect(mac == whole)
        }
    }

    @Test("concurrent MACs with one key all give the right answer")
    func concurrent() async throws {
        let testCase = Self.cases[0]
        let key = try HMACSHA256Key(key: testCase.key)
        let results = await withTaskGroup(of: String.self) { group in
            for _ in 0..<64 {
                group.addTask { Hex.encode((try? key.authenticationCode(message: testCase.data)) ?? []) }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 == testCase.mac })
    }

    @Test("the precomputed pad states give the RFC 4231 MAC too (case 5 on its first 128 bits)", arguments: cases)
    func padStates(_ testCase: Case) throws {
        let mac = try HMACSHA256Pads(key: testCase.key).authenticationCode(message: testCase.data)
        #expect(Hex.encode(mac.prefix(testCase.mac.count / 2)) == testCase.mac)
    }

    @Test("the pad states and EVP_MAC agree on random keys of 0 to 130 bytes and messages of 0 to 200 bytes")
    func padStatesAgreeWithEVP() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<300 {
            let key = (0..<(round % 131)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let message = (0..<Int.random(in: 0...200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let pads = try HMACSHA256Pads(key: key)
            #expect(try pads.authenticationCode(message: message) == HMACSHA256Key(key: key).authenticationCode(message: message), "key \(key.count) B, message \(message.count) B")
            // Used again, the states are unchanged.
            #expect(try pads.authenticationCode(message: message) == pads.authenticationCode(message: message))
        }
    }

    @Test("16-byte messages (nonces, on the one-compression path) agree with EVP_MAC for random keys and nonces")
    func sixteenByteMessagesAgreeWithEVP() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<500 {
            let key = (0..<(round % 131)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let nonce = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let pads = try HMACSHA256Pads(key: key)
            #expect(try pads.authenticationCode(message: nonce) == HMACSHA256Key(key: key).authenticationCode(message: nonce), "key \(key.count) B")
        }
        // The messages on either side of 16 bytes take the general path and still agree.
        let key = Array(repeating: UInt8(0x0B), count: 32)
        for length in [15, 16, 17] {
            let message = Array(repeating: UInt8(0xA5), count: length)
            #expect(try HMACSHA256Pads(key: key).authenticationCode(message: message) == HMACSHA256Key(key: key).authenticationCode(message: message))
        }
    }
}
