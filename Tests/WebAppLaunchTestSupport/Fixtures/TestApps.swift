import WebAppRegistry

/// The registered apps the suites launch, defined once: the health magazine and the bonus
/// programme, each at a public https URL (core and native rules) and at a loopback URL (what
/// a server on this machine answers for; development keys are loopback only).
public enum TestApps {
    /// The magazine's deep-link allowlist: `healthmagazin://…/details…?article_id=…`.
    public static let magazinDeepLinks = DeepLinkAllowlist(hosts: ["healthmagazin"], pathPrefixes: ["/details"], queryKeys: ["article_id"])

    /// The magazine at its public URL.
    public static let magazin = try! WebApp(
        id: "healthmagazin", title: "Gesundheitsmagazin",
        url: RegisteredURL("https://magazin.example/app"), deepLinks: magazinDeepLinks
    )

    /// The bonus programme at its public URL, registered with a query.
    public static let bonus = try! WebApp(id: "bonus", title: "Bonus", url: RegisteredURL("https://bonus.example/start?tenant=demo&lang=de"))

    /// The magazine where the sample server serves it on loopback.
    public static let loopbackMagazin = try! WebApp(
        id: "healthmagazin", title: "Gesundheitsmagazin",
        url: RegisteredURL("http://127.0.0.1:8080/apps/healthmagazin"), deepLinks: magazinDeepLinks
    )

    /// The bonus programme where the sample server serves it on loopback.
    public static let loopbackBonus = try! WebApp(
        id: "bonus", title: "Bonusprogramm", url: RegisteredURL("http://127.0.0.1:8080/apps/bonus?tenant=demo")
    )
}
