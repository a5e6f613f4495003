import WebAppLaunchTestSupport
import WebAppRegistry

/// The registry the tests resolve against: the product's health magazine with its real
/// allowlist (shared, `TestApps`), a tenant-specific coach app (registered with a query) and
/// a loopback dev app.
enum Fixtures {
    static let allowlist = TestApps.magazinDeepLinks

    static let magazin = TestApps.magazin
    static let coach = try! WebApp(id: "coach", title: "Coach", url: try RegisteredURL("https://coach.example/app?tenant=a"))
    static let devApp = try! WebApp(
        id: "dev", title: "Dev", url: try RegisteredURL("http://127.0.0.1:8080/dev"), deepLinks: allowlist
    )
    static let registry = try! Registry(apps: [magazin, coach, devApp])

    /// A string of `count` copies of `unit`, for oversize rows.
    static func repeated(_ unit: String, _ count: Int) -> String { String(repeating: unit, count: count) }
}
