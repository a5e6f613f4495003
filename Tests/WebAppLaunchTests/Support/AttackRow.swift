import Foundation
import Testing
@testable import WebAppLaunch
import WebAppRegistry

/// One attack: what is presented to which verifier at what time, and the exact outcome.
struct AttackRow: Sendable, CustomTestStringConvertible {
    enum Input: Sendable {
        /// The `launch` value alone (no request around it).
        case token(String)
        /// A request: raw query and (POST) form body.
        case request(query: String?, form: String?)
        /// A whole launch URL (the CLI's path).
        case url(String)
    }

    let name: String
    let input: Input
    var now: UInt64 = Fixtures.nowSeconds
    var verifier: LaunchVerifier = Fixtures.verifier()
    /// The exact code, or `nil` when the row must be accepted.
    let expected: LaunchError.Code?

    var testDescription: String { name }

    init(_ name: String, _ input: Input, now: UInt64 = Fixtures.nowSeconds, verifier: LaunchVerifier = Fixtures.verifier(), expect expected: LaunchError.Code?) {
        self.name = name
        self.input = input
        self.now = now
        self.verifier = verifier
        self.expected = expected
    }

    static func token(_ name: String, _ token: String, now: UInt64 = Fixtures.nowSeconds, verifier: LaunchVerifier = Fixtures.verifier(), expect expected: LaunchError.Code?) -> AttackRow {
        AttackRow(name, .token(token), now: now, verifier: verifier, expect: expected)
    }

    /// The text an attacker presented (must never come back in an error).
    var presentedText: String {
        switch input {
        case .token(let token): token
        case .request(let query, let form): (query ?? "") + (form ?? "")
        case .url(let url): url
        }
    }

    func run() -> Result<VerifiedLaunch, LaunchError> {
        do throws(LaunchError) {
            switch input {
            case .token(let token):
                return .success(try verifier.verify(token: Substring(token), otherQueryParameters: nil, now: now))
            case .request(let query, let form):
                return .success(try verifier.verify(query: query.map { Substring($0) }, form: form.map { Substring($0) }, now: Date(timeIntervalSince1970: Double(now))))
            case .url(let url):
                return .success(try verifier.verify(url: url, now: Date(timeIntervalSince1970: Double(now))))
            }
        } catch {
            return .failure(error)
        }
    }

    /// Asserts the exact outcome.
    func check(sourceLocation: SourceLocation = #_sourceLocation) {
        switch run() {
        case .success:
            #expect(expected == nil, "accepted, but \(expected?.rawValue ?? "") was expected", sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(error.code == expected, "rejected with \(error.code), expected \(expected?.rawValue ?? "acceptance")", sourceLocation: sourceLocation)
        }
    }
}
