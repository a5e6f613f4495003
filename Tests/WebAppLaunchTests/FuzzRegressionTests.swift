import Foundation
import Testing
@testable import WebAppLaunch
import WebAppRegistry

/// Inputs found by the libFuzzer targets in `Fuzz/` (issue 8), kept as regression tests.
/// Each names the target and the invariant it broke.
@Suite("Fuzzer findings stay fixed", .tags(.securityRegression))
struct FuzzRegressionTests {
    /// A registered URL whose query holds the three ASCII characters that have a one-scalar
    /// canonical equivalent: `K` (U+212A KELVIN SIGN), `;` (U+037E GREEK QUESTION MARK) and
    /// `` ` `` (U+1FEF GREEK VARIA).
    static let app = try! WebApp(id: "unit", title: "Unit", url: RegisteredURL("https://k.example/app?unit=K&sep=;&q=`"))
    static let verifier = try! LaunchVerifier(keyring: Fixtures.keyring, app: app)
    static let token: String = try! LaunchSigner(keyring: Fixtures.keyring, registry: Registry(apps: [app]))
        .launchToken(for: "unit", user: Fixtures.user, now: Fixtures.now)

    func verify(_ query: String) -> LaunchError.Code? {
        do {
            _ = try Self.verifier.verify(query: query[...], now: Fixtures.now)
            return nil
        } catch {
            return error.code
        }
    }

    @Test("the registered parameters, in any order, are accepted")
    func registeredParameters() {
        #expect(verify("unit=K&sep=;&q=`&launch=\(Self.token)") == nil)
        #expect(verify("launch=\(Self.token)&q=`&sep=;&unit=K") == nil)
    }

    // FuzzParameters/FuzzVerifier, invariant "accepted a request whose other parameters differ
    // byte for byte from the registered URL's": the parameters were compared as Swift
    // Strings, which are equal under Unicode canonical equivalence.
    @Test("a parameter canonically equivalent to the registered one is not accepted", arguments: [
        "unit=\u{212A}&sep=;&q=`",   // KELVIN SIGN for K
        "unit=K&sep=\u{037E}&q=`",   // GREEK QUESTION MARK for ;
        "unit=K&sep=;&q=\u{1FEF}",   // GREEK VARIA for `
    ])
    func canonicalEquivalents(_ parameters: String) {
        #expect(verify(parameters + "&launch=\(Self.token)") == .unexpectedParameters)
    }

    // FuzzParameters, invariant "the other query parameters are not the query's other pieces,
    // byte for byte": the query was split on Characters, and `&` followed by a combining mark
    // is one Character, so it was not a separator (SPEC.md §11: split on the byte `&`).
    @Test("the query is split on the byte `&`, even before a combining mark")
    func splitOnBytes() throws {
        let parameters = try LaunchParameters(query: "a=1&\u{301}b=2&launch=T"[...])
        #expect(parameters.otherQueryParameters.map { Array($0.utf8) } == [Array("a=1".utf8), Array("\u{301}b=2".utf8)])
        #expect(Array(parameters.token.utf8) == Array("T".utf8))
        // `launch=` followed by a combining mark is still the `launch` piece (and malformed).
        let combined = try LaunchParameters(query: "launch=\u{301}\(Self.token)"[...])
        #expect(Array(combined.token.utf8) == Array("\u{301}\(Self.token)".utf8))
        #expect(verify("unit=K&sep=;&q=`&launch=\u{301}\(Self.token)") == .malformed)
        // A piece `\u{301}launch=x` does not start with the bytes `launch=`: another parameter.
        #expect(verify("unit=K&sep=;&q=`&launch=\(Self.token)&\u{301}launch=x") == .unexpectedParameters)
    }

    // FuzzLoaders, crash-5de1c289…: an `@` in a registered URL's *path* tripped the harness's
    // "no userinfo" invariant. RFC 3986 allows `@` in a path; only the authority must not
    // carry one. Kept to pin the behaviour down.
    @Test("an `@` in the path is not userinfo; in the authority it is refused")
    func atSignInPath() throws {
        let url = try RegisteredURL("https://very-long.example.org/segment/segmeg@nt/segment")
        #expect(url.host == "very-long.example.org")
        #expect(url.description == "https://very-long.example.org/segment/segmeg@nt/segment")
        #expect(throws: RegistryError.self) { try RegisteredURL("https://user@very-long.example.org/segment") }
    }
}
