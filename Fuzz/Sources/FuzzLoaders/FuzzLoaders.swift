// libFuzzer target: the keyring and registry loaders and the registered-URL parser.
//
// Input: [mode] [rest…]
//   mode % 3 == 0: Keyring(json:)        — a loaded keyring is valid (≥ 1 key, unique kids,
//                  32–128-byte secrets, kid rules) and survives its own JSON round trip.
//   mode % 3 == 1: Registry(json:)       — every app's URL is canonical (parsing its
//                  canonical text again gives the same text) and lookups find each app.
//   mode % 3 == 2: RegisteredURL(text)   — canonical text is printable ASCII, ≤ 2048 bytes,
//                  idempotent, no fragment/userinfo, http only on loopback.
import Foundation
import FuzzSupport
import WebAppLaunch
import WebAppRegistry

func checkURL(_ url: RegisteredURL) {
    let text = url.description
    guard !text.isEmpty, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { violation("canonical URL text is not printable ASCII") }
    guard let again = try? RegisteredURL(text), again.description == text, again == url else {
        violation("canonical URL text does not parse back to itself")
    }
    guard !text.contains("#") else { violation("canonical URL carries a fragment") }
    let afterScheme = text[text.range(of: "://")!.upperBound...]
    let authority = afterScheme.prefix { $0 != "/" && $0 != "?" }
    guard !authority.contains("@") else { violation("canonical URL carries userinfo") }
    guard url.scheme == "https" || (url.scheme == "http" && url.isLoopback) else { violation("http accepted for a non-loopback host") }
    guard text.hasPrefix(url.scheme + "://") else { violation("canonical text does not start with its scheme") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLoaders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    guard let first = bytes.first else { return 0 }
    let rest = bytes.dropFirst()
    switch first % 3 {
    case 0:
        guard let keyring = try? Keyring(json: Data(rest)) else { return 0 }
        guard !keyring.keys.isEmpty else { violation("an empty keyring loaded") }
        guard Set(keyring.keys.map(\.kid)).count == keyring.keys.count else { violation("duplicate kids loaded") }
        for key in keyring.keys {
            guard KeyringKey.isValidKeyID(key.kid) else { violation("an invalid kid loaded") }
            guard (32...128).contains(key.secret.base64URLEncoded.count * 3 / 4) else { violation("a secret of invalid size loaded") }
        }
        guard let again = try? Keyring(json: keyring.jsonRepresentation()) else { violation("a loaded keyring does not reload from its JSON") }
        guard again.keys == keyring.keys, again.isDevelopment == keyring.isDevelopment else { violation("keyring JSON round trip changed it") }
    case 1:
        guard let registry = try? Registry(json: Data(rest)) else { return 0 }
        for app in registry.apps {
            checkURL(app.url)
            guard WebApp.isValidID(app.id) else { violation("an invalid app id loaded") }
            guard registry.app(id: app.id) == app, registry.app(at: app.url) == app else { violation("registry lookup does not find a loaded app") }
        }
    default:
        if let url = try? RegisteredURL(String(decoding: rest, as: UTF8.self)) {
            checkURL(url)
            guard url.description.utf8.count <= RegisteredURL.maximumLength else { violation("canonical URL longer than the limit") }
        }
    }
    return 0
}
