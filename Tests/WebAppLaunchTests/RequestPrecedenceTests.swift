import Foundation
import Testing
@testable import WebAppLaunch

/// SPEC.md §11, "Request" (issue 17, point 5): the error of a malformed request never
/// depends on the order of its pieces; every `malformed` condition wins over
/// `unexpected_parameters`.
@Suite("A request's error does not depend on the order of its pieces", .tags(.encoding))
struct RequestPrecedenceTests {
    static func code(query: String?, form: String?) -> LaunchError.Code? {
        do {
            _ = try LaunchParameters(query: query.map { $0[...] }, form: form.map { $0[...] })
            return nil
        } catch {
            return error.code
        }
    }

    /// Every order of a form's pieces, with or without `launch` also in the query.
    static func orders(_ pieces: [String]) -> [[String]] {
        guard pieces.count > 1 else { return [pieces] }
        return pieces.indices.flatMap { index in
            var rest = pieces
            let first = rest.remove(at: index)
            return orders(rest).map { [first] + $0 }
        }
    }

    @Test("in any order: a second launch or an empty piece is malformed even beside an extra form field; the extra field alone is unexpected_parameters", arguments: [
        (nil, ["launch=T", "x=1", "launch=T"], LaunchError.Code.malformed),
        ("launch=T", ["x=1", "launch=T"], .malformed),
        (nil, ["launch=T", "x=1", ""], .malformed),
        (nil, ["launch=", "x=1"], .malformed),
        (nil, ["x=1", "y=2"], .malformed),
        (nil, ["launch=T", "x=1"], .unexpectedParameters),
        ("a=1", ["launch=T", "x=1"], .unexpectedParameters),
    ] as [(String?, [String], LaunchError.Code)])
    func precedence(query: String?, formPieces: [String], expected: LaunchError.Code) {
        for order in Self.orders(formPieces) {
            #expect(Self.code(query: query, form: order.joined(separator: "&")) == expected, "\(order)")
        }
    }
}
