// libFuzzer target: the query/form parser in front of the verifier (LaunchParameters), and
// the verifier's request and whole-URL paths.
//
// Input: [mode] [config] [rest…]
//   mode % 4 == 0: rest is a raw query                 → LaunchParameters(query:)
//   mode % 4 == 1: rest is query 0x00 form (a POST)     → LaunchParameters(query:form:)
//   mode % 4 == 2: rest is a form only (POST, no query)
//   mode % 4 == 3: rest is a whole launch URL           → verify(url:)
//
// Invariants: a parse that succeeds found exactly one `launch` piece, the other pieces are
// exactly the query's other `&`-separated byte strings in order (SPEC.md §11: split on `&`
// without decoding), a form carries nothing but `launch`; an accepted request passes
// checkAccepted (only what the signer with the right key produced is accepted).
import Foundation
import FuzzSupport
import WebAppLaunch

let configs = Fixtures.configs
let ampersand = UInt8(ascii: "&")

/// SPEC.md §11's split, byte for byte.
func pieces(_ text: Substring?) -> [[UInt8]] {
    guard let text, !text.isEmpty else { return [] }
    return Array(text.utf8).split(separator: ampersand, omittingEmptySubsequences: false).map(Array.init)
}

func isLaunchPiece(_ piece: [UInt8]) -> Bool {
    piece == Array("launch".utf8) || piece.starts(with: Array("launch=".utf8))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParameters(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    guard bytes.count >= 2 else { return 0 }
    let mode = bytes[bytes.startIndex] % 4
    let config = configs[Int(bytes[bytes.startIndex + 1]) % configs.count]
    let rest = bytes.dropFirst(2)
    if mode == 3 {
        let url = String(decoding: rest, as: UTF8.self)
        if let launch = try? config.verifier.verify(url: url, now: config.now) {
            let query = url[url.index(after: url.firstIndex(of: "?")!)...]
            guard let parameters = try? LaunchParameters(query: query) else { violation("accepted a URL whose query does not parse") }
            checkAccepted(token: parameters.token, launch: launch, config: config, otherQueryParameters: parameters.otherQueryParameters)
        }
        return 0
    }
    let query: Substring?
    let form: Substring?
    switch mode {
    case 0: (query, form) = (Substring(String(decoding: rest, as: UTF8.self)), nil)
    case 1:
        let (q, f) = splitOnce(rest, 0)
        query = Substring(String(decoding: q, as: UTF8.self))
        form = f.map { Substring(String(decoding: $0, as: UTF8.self)) }
    default: (query, form) = (nil, Substring(String(decoding: rest, as: UTF8.self)))
    }
    if let parameters = try? LaunchParameters(query: query, form: form) {
        let queryPieces = pieces(query)
        let formPieces = pieces(form)
        let launchPieces = (queryPieces + formPieces).filter(isLaunchPiece)
        guard launchPieces.count == 1, !(queryPieces + formPieces).contains(where: \.isEmpty) else {
            violation("parameters parsed although `launch` is missing or repeated, or a piece is empty")
        }
        guard formPieces.allSatisfy(isLaunchPiece) else { violation("a form carrying more than `launch` parsed") }
        guard Array(parameters.token.utf8) == Array(launchPieces[0].dropFirst(7)), !parameters.token.isEmpty else {
            violation("the token is not the `launch` piece's value")
        }
        guard parameters.otherQueryParameters.map({ Array($0.utf8) }) == queryPieces.filter({ !isLaunchPiece($0) }) else {
            violation("the other query parameters are not the query's other pieces, byte for byte")
        }
    }
    if let launch = try? config.verifier.verify(query: query, form: form, now: config.now) {
        guard let parameters = try? LaunchParameters(query: query, form: form) else { violation("accepted unparsable parameters") }
        checkAccepted(token: parameters.token, launch: launch, config: config, otherQueryParameters: parameters.otherQueryParameters)
    }
    return 0
}
