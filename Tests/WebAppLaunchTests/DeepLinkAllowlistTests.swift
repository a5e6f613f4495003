import Testing
import WebAppRegistry

@Suite("Deep-link allowlists are validated when an app is registered")
struct DeepLinkAllowlistTests {
    static let url = try! RegisteredURL("https://magazin.example/app")

    @Test("a well-formed allowlist is accepted and its scheme and hosts are lower-cased")
    func accepted() throws {
        let app = try WebApp(id: "m", title: "M", url: Self.url, deepLinks: DeepLinkAllowlist(scheme: "NavidaPro", hosts: ["HealthMagazin"], pathPrefixes: ["/details"], queryKeys: ["article_id"]))
        #expect(app.deepLinks?.scheme == "navidapro")
        #expect(app.deepLinks?.hosts == ["healthmagazin"])
    }

    @Test("malformed allowlists are refused with invalid_allowlist", arguments: [
        DeepLinkAllowlist(scheme: "https", hosts: ["healthmagazin"]),
        DeepLinkAllowlist(scheme: "javascript", hosts: ["healthmagazin"]),
        DeepLinkAllowlist(scheme: "", hosts: ["healthmagazin"]),
        DeepLinkAllowlist(hosts: []),
        DeepLinkAllowlist(hosts: [""]),
        DeepLinkAllowlist(hosts: ["evil.example/path"]),
        DeepLinkAllowlist(hosts: ["user@healthmagazin"]),
        DeepLinkAllowlist(hosts: ["healthmagazin"], pathPrefixes: ["details"]),
        DeepLinkAllowlist(hosts: ["healthmagazin"], pathPrefixes: ["/details/%2e%2e"]),
        DeepLinkAllowlist(hosts: ["healthmagazin"], pathPrefixes: ["/details/../admin"]),
        DeepLinkAllowlist(hosts: ["healthmagazin"], pathPrefixes: ["/details\\admin"]),
        DeepLinkAllowlist(hosts: ["healthmagazin"], queryKeys: [""]),
        DeepLinkAllowlist(hosts: ["healthmagazin"], queryKeys: ["a=b"]),
        DeepLinkAllowlist(hosts: ["healthmagazin"], queryKeys: ["a&b"]),
    ])
    func refused(allowlist: DeepLinkAllowlist) {
        #expect {
            try WebApp(id: "m", title: "M", url: Self.url, deepLinks: allowlist)
        } throws: { error in
            (error as? RegistryError)?.code == .invalidAllowlist
        }
    }
}
