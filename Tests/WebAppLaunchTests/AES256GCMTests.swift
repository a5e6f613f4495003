import Testing
@testable import WebAppLaunch

@Suite("AES-256-GCM through OpenSSL matches the GCM specification", .tags(.knownAnswer))
struct AES256GCMTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let number: Int
        let key: String
        let iv: String
        let plaintext: String
        let aad: String
        let ciphertext: String
        let tag: String
        var testDescription: String { "McGrew–Viega GCM test case \(number)" }
    }

    static let k15 = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"
    static let p15 = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
    static let c15 = "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"

    static let cases: [Case] = [
        Case(number: 13, key: String(repeating: "00", count: 32), iv: String(repeating: "00", count: 12), plaintext: "", aad: "",
             ciphertext: "", tag: "530f8afbc74536b9a963b4f1c4cb738b"),
        Case(number: 14, key: String(repeating: "00", count: 32), iv: String(repeating: "00", count: 12), plaintext: String(repeating: "00", count: 16), aad: "",
             ciphertext: "cea7403d4d606b6e074ec5d3baf39d18", tag: "d0d1c8a799996bf0265b98b5d48ab919"),
        Case(number: 15, key: k15, iv: "cafebabefacedbaddecaf888", plaintext: p15, aad: "",
             ciphertext: c15, tag: "b094dac5d93471bdec1a502270e3cc6c"),
        Case(number: 16, key: k15, iv: "cafebabefacedbaddecaf888", plaintext: String(p15.dropLast(8)), aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2",
             ciphertext: String(c15.dropLast(8)), tag: "76fc6ece0f4e1768cddf8853bb2d551b"),
    ]

    @Test("sealing gives the published ciphertext and tag", arguments: cases)
    func seal(_ testCase: Case) throws {
        let sealed = try AES256GCM.seal(Hex.decode(testCase.plaintext), key: AES256GCMKey(key: Hex.decode(testCase.key)), iv: Hex.decode(testCase.iv), associatedData: Hex.decode(testCase.aad))
        #expect(Hex.encode(sealed) == testCase.ciphertext + testCase.tag)
    }

    @Test("opening the published ciphertext and tag gives the plaintext", arguments: cases)
    func open(_ testCase: Case) throws {
        let opened = try AES256GCM.open(
            ArraySlice(Hex.decode(testCase.ciphertext + testCase.tag)),
            key: AES256GCMKey(key: Hex.decode(testCase.key)),
            iv: ArraySlice(Hex.decode(testCase.iv)),
            associatedData: ArraySlice(Hex.decode(testCase.aad))
        )
        #expect(Hex.encode(opened) == testCase.plaintext)
    }

    @Test("any flipped bit in the tag, ciphertext, IV or associated data fails authentication, and the key still opens and seals right afterwards", arguments: cases)
    func tampering(_ testCase: Case) throws {
        let sealed = Hex.decode(testCase.ciphertext + testCase.tag)
        // One key object throughout: every rejection below ran on one of its pooled contexts.
        let key = AES256GCMKey(key: Hex.decode(testCase.key))
        let iv = Hex.decode(testCase.iv), aad = Hex.decode(testCase.aad)
        func rejects(_ sealed: [UInt8], iv: [UInt8], aad: [UInt8]) -> Bool {
            do {
                _ = try AES256GCM.open(ArraySlice(sealed), key: key, iv: ArraySlice(iv), associatedData: ArraySlice(aad))
                return false
            } catch {
                if case .authenticationFailed = error { return true }
                return false
            }
        }
        for index in sealed.indices {
            var tampered = sealed
            tampered[index] ^= 0x80
            #expect(rejects(tampered, iv: iv, aad: aad), "byte \(index)")
        }
        var badIV = iv
        badIV[11] ^= 1
        #expect(rejects(sealed, iv: badIV, aad: aad))
        #expect(rejects(sealed, iv: iv, aad: aad + [0]))
        #expect(rejects(Array(sealed.dropLast()), iv: iv, aad: aad))
        #expect(rejects(Array(sealed.prefix(15)), iv: iv, aad: aad))
        let opened = try AES256GCM.open(ArraySlice(sealed), key: key, iv: ArraySlice(iv), associatedData: ArraySlice(aad))
        #expect(Hex.encode(opened) == testCase.plaintext)
        let resealed = try AES256GCM.seal(opened, key: key, iv: iv, associatedData: aad)
        #expect(Hex.encode(resealed) == testCase.ciphertext + testCase.tag)
    }

    @Test("one key used from many tasks at once, alternating sealing and opening under different IVs, gives every published answer")
    func concurrentReuse() async throws {
        let key = AES256GCMKey(key: Hex.decode(Self.k15))
        let cases = Self.cases.filter { $0.key == Self.k15 }
        let failures = await withTaskGroup(of: Int.self) { group in
            for round in 0..<64 {
                group.addTask {
                    let testCase = cases[round % cases.count]
                    var iv = Hex.decode(testCase.iv)
                    // Every other round under a different IV: the context's IV must not leak
                    // from one use into the next.
                    if round % 2 == 1 { iv[0] ^= UInt8(round) }
                    let aad = Hex.decode(testCase.aad)
                    guard let sealed = try? AES256GCM.seal(Hex.decode(testCase.plaintext), key: key, iv: iv, associatedData: aad),
                          let opened = try? AES256GCM.open(ArraySlice(sealed), key: key, iv: ArraySlice(iv), associatedData: ArraySlice(aad)),
                          Hex.encode(opened) == testCase.plaintext
                    else { return 1 }
                    if round % 2 == 0, Hex.encode(sealed) != testCase.ciphertext + testCase.tag { return 1 }
                    if round % 2 == 1, Hex.encode(sealed) == testCase.ciphertext + testCase.tag { return 1 }
                    return 0
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
    }
}
