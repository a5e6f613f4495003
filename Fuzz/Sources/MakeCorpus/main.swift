// Writes the seed corpora for the fuzz targets from the test vectors
// (Tests/WebAppLaunchTests/Vectors/vectors.json) and the sample files in keys/.
// Usage: MakeCorpus OUTPUT_DIR     (scripts/fuzz runs it into Fuzz/corpus)
import Foundation
import FuzzSupport
@_spi(Testing) import WebAppLaunch
import WebAppLaunchNative
import WebAppRegistry

let output = URL(fileURLWithPath: CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "corpus")
let fm = FileManager.default

func write(_ target: String, _ name: String, _ bytes: [UInt8]) {
    let dir = output.appendingPathComponent(target)
    try! fm.createDirectory(at: dir, withIntermediateDirectories: true)
    try! Data(bytes).write(to: dir.appendingPathComponent(name))
}
func b(_ s: String) -> [UInt8] { Array(s.utf8) }

for (index, config) in Fixtures.configs.enumerated() {
    let i = UInt8(index)
    let registeredQuery = config.app.url.query ?? ""
    for (n, token) in config.seedTokens.enumerated() {
        let name = "\(config.name)-\(n)"
        let launchQuery = (registeredQuery.isEmpty ? "" : registeredQuery + "&") + "launch=" + token
        write("FuzzVerifier", name + "-token", [0, i] + b(token))
        write("FuzzVerifier", name + "-post", [2, i] + b(registeredQuery) + [0] + b("launch=" + token))
        if let blob = Base64URL.decode(token), blob.count > 32 {
            write("FuzzVerifier", name + "-blob", [3, i] + Array(blob.dropLast(32)))
        }
        write("FuzzParameters", name + "-post", [1, i] + b(registeredQuery) + [0] + b("launch=" + token))
        write("FuzzParameters", name + "-form", [2, i] + b("launch=" + token))
        write("FuzzParameters", name + "-url", [3, i] + b(config.app.url.description + (registeredQuery.isEmpty ? "?" : "&") + "launch=" + token))
        _ = launchQuery
    }
    for (n, query) in config.seedQueries.enumerated() {
        write("FuzzVerifier", "\(config.name)-\(n)-query", [1, i] + b(query))
        write("FuzzParameters", "\(config.name)-\(n)-query", [0, i] + b(query))
    }
    write("FuzzLoaders", "\(config.name)-url", [2] + b(config.app.url.description))
}

// Loaders: the sample files, a keyring per status, SPEC.md's URL examples.
write("FuzzLoaders", "dev-keyring", [0] + Array(try! Data(contentsOf: Paths.devKeyring)))
write("FuzzLoaders", "registry-sample", [1] + Array(try! Data(contentsOf: Paths.sampleRegistry)))
let secret = Base64URL.encode(Array(0..<32) as [UInt8])
write("FuzzLoaders", "keyring-rotation", [0] + b("""
{"development":false,"keys":[{"kid":"2026-10","status":"verify-only","secret":"\(secret)"},{"kid":"2026-11","status":"active","secret":"\(secret)A"},{"kid":"old","status":"revoked","secret":"\(secret)"}]}
"""))
for (n, url) in ["HTTPS://Magazin.EXAMPLE:443/app", "HTTPS://Bonus.EXAMPLE:443?tenant=a%20b&x", "http://[::1]:9000/x/y",
                 "http://127.0.0.1:8080/apps/healthmagazin", "https://a.example/p%41th/x?k=v&k2"].enumerated() {
    write("FuzzLoaders", "spec-url-\(n)", [2] + b(url))
}

// Native: bridge messages, deep links, plugin links, navigations.
let registry = Fixtures.sampleRegistry
let bridge = [
    #"{"action":"displayText","data":"Hallo Jürgen"}"#,
    #"{"action":"deeplink","data":"navidapro://healthmagazin/details?article_id=606"}"#,
    #"{"type":"height","value":640}"#, #"{"type":"height","value":1.5e3}"#,
    #"{"type":"openUrl","value":"https://www.example.org/info?x=1"}"#,
    #"{"action":"height","data":true}"#,
]
for (n, message) in bridge.enumerated() { write("FuzzNative", "bridge-\(n)", [0, 0] + b(message)) }
let links = ["navidapro://healthmagazin/details?article_id=606", "navidapro://healthmagazin/details/7",
             "navidapro://bonus/points?id=3", "navidapro://bonus/rewards"]
for (n, link) in links.enumerated() { write("FuzzNative", "deeplink-\(n)", [1, UInt8(n / 2)] + b(link)) }
for (n, app) in registry.apps.enumerated() {
    write("FuzzNative", "plugin-\(n)", [2, UInt8(n)] + b(PluginLink.link(for: app)))
    for (m, url) in [app.url.description, app.url.origin + "/other", "https://elsewhere.example/",
                     "javascript:alert(1)", "data:text/html,x", "file:///etc/passwd", links[n * 2]].enumerated() {
        write("FuzzNative", "nav-\(n)-\(m)", [3, UInt8(n)] + b(url))
    }
}
print("corpus written to \(output.path)")

// Self-check: the positive seeds are accepted and pass the verifier target's invariant, so
// the fuzzer starts from inputs that reach acceptance.
var accepted = 0
for config in Fixtures.configs {
    for token in config.seedTokens {
        if let launch = try? config.verifier.verify(token: token, now: config.now) {
            checkAccepted(token: Substring(token), launch: launch, config: config, otherQueryParameters: nil)
            accepted += 1
        }
    }
}
print("seed tokens accepted and re-minted byte for byte by the signer: \(accepted)")
