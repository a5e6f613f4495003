// libFuzzer target: the native side's parsers of untrusted page input.
//
// Input: [mode] [app] [rest…]   (app selects a web app of keys/registry.sample.json)
//   mode % 4 == 0: BridgeMessage(json:)        — limits hold for whatever decodes.
//   mode % 4 == 1: DeepLink(text, allowedBy:)  — only allowlisted scheme/host/path/keys.
//   mode % 4 == 2: PluginLink(text, in:)       — resolves only to a registered app.
//   mode % 4 == 3: NavigationPolicy.decision   — never allows a non-app origin in the web
//                  view, never routes a deep link the allowlist does not allow.
import Foundation
import FuzzSupport
import WebAppLaunchNative
import WebAppRegistry

let registry = Fixtures.sampleRegistry
let apps = registry.apps

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNative(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    guard bytes.count >= 2 else { return 0 }
    let mode = bytes[bytes.startIndex] % 4
    let app = apps[Int(bytes[bytes.startIndex + 1]) % apps.count]
    let rest = bytes.dropFirst(2)
    let text = String(decoding: rest, as: UTF8.self)
    switch mode {
    case 0:
        guard let message = try? BridgeMessage(json: Data(rest)) else { return 0 }
        guard rest.count <= BridgeMessage.maximumJSONLength else { violation("oversized bridge JSON decoded") }
        switch message {
        case .displayText(let text):
            guard text.utf8.count <= BridgeMessage.maximumTextLength else { violation("displayText over the limit") }
        case .deepLink(let link):
            guard !link.isEmpty, link.utf8.count <= BridgeMessage.maximumURLLength else { violation("deeplink text over the limit") }
        case .height(let height):
            guard height.isFinite, height >= 0, height <= BridgeMessage.maximumHeight else { violation("height out of range") }
        case .openURL(let url):
            guard url.scheme?.lowercased() == "https" else { violation("openUrl decoded a non-https URL") }
        }
    case 1:
        guard let link = try? DeepLink(text, allowedBy: app.deepLinks) else { return 0 }
        check(link, app: app)
        guard text.utf8.count <= DeepLink.maximumLength, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            violation("a deep link outside printable ASCII or the length limit was accepted")
        }
    case 2:
        guard let link = try? PluginLink(text, in: registry) else { return 0 }
        guard registry.app(at: link.app.url) == link.app, registry.app(id: link.app.id) == link.app else {
            violation("a plugin link resolved to an unregistered app")
        }
    default:
        let policy = NavigationPolicy(app: app, allowsLoopbackHTTP: true)
        switch policy.decision(for: text, isMainFrame: rest.count % 2 == 0, isRedirect: rest.count % 3 == 0) {
        case .allow:
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
                violation("the web view may load a non-web URL")
            }
            // Differential check: Foundation's URL parser must see the app's own origin too.
            let host = (url.host(percentEncoded: true) ?? "").lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            let appHost = app.url.host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            let defaultPort = scheme == "https" ? 443 : 80
            guard scheme == app.url.scheme, host == appHost, (url.port ?? defaultPort) == (app.url.port ?? defaultPort) else {
                violation("the web view may load a URL whose origin (as Foundation parses it) is not the app's")
            }
        case .routeInApp(let link):
            check(link, app: app)
        case .openExternally(let url):
            guard url.scheme?.lowercased() == "https" else { violation("a non-https URL is opened externally") }
        case .cancel:
            break
        }
    }
    return 0
}

func check(_ link: DeepLink, app: WebApp) {
    guard let allowlist = app.deepLinks else { violation("a deep link passed without an allowlist") }
    guard link.scheme == allowlist.scheme, allowlist.hosts.contains(link.host) else { violation("a deep link to a host off the allowlist") }
    guard allowlist.pathPrefixes.isEmpty || allowlist.pathPrefixes.contains("/")
        || allowlist.pathPrefixes.contains(where: { link.path == $0 || link.path.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }) else {
        violation("a deep link path off the allowlist")
    }
    guard link.parameters.keys.allSatisfy(allowlist.queryKeys.contains) else { violation("a deep link query key off the allowlist") }
}
