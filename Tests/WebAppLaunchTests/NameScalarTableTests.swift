import Foundation
import Testing
@testable import WebAppLaunch
import WebAppLaunchTestSupport
import WebAppRegistry

/// SPEC.md §10.3 (issue 17, point 1): names are checked against a fixed table derived from
/// Unicode 14.0, so a verifier's answer does not depend on its runtime's Unicode version.
@Suite("Name scalars come from the pinned Unicode 14.0 table, not from the runtime", .tags(.claims))
struct NameScalarTableTests {
    /// The scalars issue 17 found accepted by the Swift runtime and refused by Python 3.11.
    static let assignedAfter14: [UInt32] = [0x1E030, 0x1FAE8, 0x0CF3, 0x2EBF0, 0x1C89, 0x1FAE9, 0x1FAEA, 0x323B0]

    static var specTablePath: String { repositoryRoot.appendingPathComponent("SPEC.name-scalars.txt").path }

    @Test("the embedded table is exactly SPEC.name-scalars.txt, ascending and disjoint")
    func tableMatchesSpec() throws {
        let text = try String(contentsOfFile: Self.specTablePath, encoding: .utf8)
        var bounds: [UInt32] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: ".", omittingEmptySubsequences: true)
            try #require(parts.count == 2)
            bounds += [try #require(UInt32(parts[0], radix: 16)), try #require(UInt32(parts[1], radix: 16))]
        }
        #expect(bounds == NameScalars.rangeBounds)
        #expect(NameScalars.unicodeVersion == "14.0.0")
        for index in stride(from: 0, to: bounds.count, by: 2) {
            #expect(bounds[index] <= bounds[index + 1])
            if index >= 2 { #expect(bounds[index] > bounds[index - 1] + 1, "ranges are disjoint and not adjacent") }
        }
    }

    @Test("the table agrees with the runtime's Unicode data for every scalar the runtime says existed in 14.0, and refuses every later one")
    func tableAgreesWithRuntimeUpTo14() {
        var disagreements: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else {
                #expect(!NameScalars.isAllowed(value), "surrogates are never allowed")
                continue
            }
            let properties = scalar.properties
            let inFourteen = properties.age.map { ($0.major, $0.minor) <= (14, 0) } ?? false
            let excluded: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned]
            let runtimeAllows = inFourteen && !excluded.contains(properties.generalCategory)
            if runtimeAllows != NameScalars.isAllowed(value) { disagreements.append(String(value, radix: 16)) }
        }
        #expect(disagreements.isEmpty, "U+\(disagreements.prefix(20))")
    }

    @Test("a name with a scalar assigned after Unicode 14.0 is refused by the claim rules, the signer and the verifier", arguments: assignedAfter14)
    func refusedEverywhere(value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        let name = "Anna" + String(Character(scalar))
        #expect(!ClaimRules.isValidName(name))
        let user = LaunchUser(accessToken: "at", firstName: name, lastName: "Groß", kvnumber: "A123456780")
        var mintCode: LaunchError.Code?
        do { _ = try Fixtures.signer.launchToken(for: "healthmagazin", user: user, now: Fixtures.now) } catch { mintCode = error.code }
        #expect(mintCode == .invalidClaims)
        let forged = TokenForge().with { $0.firstName = Array(name.utf8) }
        AttackRow.token("U+\(String(value, radix: 16))", forged.token, expect: .invalidClaims).check()
        AttackRow.token("sealed", forged.with { $0.mode = LaunchMode.sealed.rawValue }.token, expect: .invalidClaims).check()
    }

    @Test("allowed spaces may sit inside a name, never at its start or end", arguments: [0x0020, 0x00A0, 0x1680, 0x2002, 0x200A, 0x202F, 0x205F, 0x3000] as [UInt32])  // U+2000 and U+2001 are not NFC (they map to U+2002, U+2003)
    func edgeSpaces(value: UInt32) throws {
        let space = String(Character(try #require(Unicode.Scalar(value))))
        #expect(ClaimRules.isValidName("Anna" + space + "Maria"))
        #expect(!ClaimRules.isValidName(space + "Anna"))
        #expect(!ClaimRules.isValidName("Anna" + space))
    }

    @Test("names of Unicode 14.0 scripts and emoji are accepted; NFD and format characters are not", arguments: [
        ("Jürgen", true), ("李 小龍", true), ("Nguyễn 😀", true), ("Anna\u{1FAE0}", true), ("O'Brien-Müller", true),
        ("Ju\u{308}rgen", false), ("Anna\u{200B}", false), ("Anna\u{202E}", false), ("Anna\u{E000}", false), ("Anna\u{2028}", false),
    ])
    func samples(name: String, valid: Bool) {
        #expect(ClaimRules.isValidName(name) == valid)
    }
}
