// libFuzzer target: the token decoder (strict base64url) and LaunchVerifier.
//
// Input: [mode] [config] [rest…]
//   mode % 4 == 0: rest is the token text       → Base64URL round trip, verify(token:)
//   mode % 4 == 1: rest is a raw query           → verify(query:)
//   mode % 4 == 2: rest is query 0x00 form       → verify(query:form:) (a POST)
//   mode % 4 == 3: rest is a blob without its MAC; the harness appends the right MAC (plays
//                  the key holder) so the fuzzer explores everything after the MAC check.
// config selects a verifier set-up (one per test vector; Fixtures.configs).
//
// Invariant (checkAccepted): whatever is accepted is byte for byte what the signer with the
// right key produces for the same fields; i.e. nothing else is ever accepted.
import Foundation
import FuzzSupport
@_spi(Testing) import WebAppLaunch

let configs = Fixtures.configs

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVerifier(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    guard bytes.count >= 2 else { return 0 }
    let mode = bytes[bytes.startIndex] % 4
    let config = configs[Int(bytes[bytes.startIndex + 1]) % configs.count]
    let rest = bytes.dropFirst(2)
    switch mode {
    case 0:
        // The decoder alone: whatever it accepts re-encodes to exactly the same text.
        let decoded = Array(rest).withUnsafeBytes { Base64URL.decode(utf8: $0) }
        if let decoded {
            guard Base64URL.encode(decoded).utf8.elementsEqual(rest) else { violation("base64url decoding is not canonical") }
        }
        // And encoding any bytes decodes back to them.
        guard Base64URL.decode(Base64URL.encode(rest)) == Array(rest) else { violation("base64url round trip failed") }
        let text = String(decoding: rest, as: UTF8.self)
        if let launch = try? config.verifier.verify(token: text, now: config.now) {
            checkAccepted(token: Substring(text), launch: launch, config: config, otherQueryParameters: nil)
        }
    case 1, 2:
        let (queryBytes, formBytes) = mode == 1 ? (rest, nil) : splitOnce(rest, 0)
        let query = Substring(String(decoding: queryBytes, as: UTF8.self))
        let form = formBytes.map { Substring(String(decoding: $0, as: UTF8.self)) }
        if let launch = try? config.verifier.verify(query: query, form: form, now: config.now) {
            guard let parameters = try? LaunchParameters(query: query, form: form) else {
                violation("accepted a request whose parameters do not parse")
            }
            checkAccepted(token: parameters.token, launch: launch, config: config, otherQueryParameters: parameters.otherQueryParameters)
        }
    default:
        let token = resign(Array(rest), config: config)
        if let launch = try? config.verifier.verify(token: token, now: config.now) {
            checkAccepted(token: Substring(token), launch: launch, config: config, otherQueryParameters: nil)
        }
    }
    return 0
}
