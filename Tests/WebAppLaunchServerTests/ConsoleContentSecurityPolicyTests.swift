import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WebAppLaunch
import WebAppLaunchServer
import WebAppRegistry

/// Chromium applies `form-action` to the redirect of a form submission: the console's 303 to
/// an app on another origin (behind nginx and the gate) was blocked under `form-action 'self'`.
@Suite("The console's form-action names 'self' and exactly the registered apps' origins")
struct ConsoleContentSecurityPolicyTests {
    static let magazin = try! WebApp(id: "healthmagazin", title: "Gesundheitsmagazin", url: RegisteredURL("HTTPS://Magazin.Example:443/app"))
    static let bonus = try! WebApp(id: "bonus", title: "Bonusprogramm", url: RegisteredURL("http://127.0.0.1:9000/apps/bonus?tenant=demo"))

    static func configuration(registry: Registry) throws -> WebAppServerConfiguration {
        var configuration = WebAppServerConfiguration(
            keyring: Fixtures.keyring,
            registry: registry,
            apps: [ServedApp(registry.apps[0], publicURL: try RegisteredURL("http://127.0.0.1:8080/apps/served"))]
        )
        configuration.demoUsers = DevelopmentConsoleTests.users
        return configuration
    }

    /// Every source expression of the policy that names a scheme and host.
    static func origins(in policy: String) -> Set<String> {
        Set(policy.split(whereSeparator: { $0 == " " || $0 == ";" }).map(String.init).filter { $0.contains("://") })
    }

    static func directive(_ name: String, in policy: String) -> String? {
        policy.components(separatedBy: "; ").first { $0.hasPrefix(name + " ") }
    }

    @Test("GET / and the console's 303 carry form-action 'self' plus the two apps' canonical origins, and no other origin")
    func consoleListsRegisteredOrigins() async throws {
        let registry = try Registry(apps: [Self.magazin, Self.bonus])
        let server = try TestServer(configuration: Self.configuration(registry: registry))
        try await server.test { client in
            let page = try await client.get("/")
            #expect(page.status == .ok)
            #expect(page.headers[values: .contentSecurityPolicy].count == 1)
            let policy = try #require(page.headers[.contentSecurityPolicy])
            #expect(Self.directive("form-action", in: policy) == "form-action 'self' https://magazin.example http://127.0.0.1:9000")
            #expect(Self.origins(in: policy) == ["https://magazin.example", "http://127.0.0.1:9000"])
            #expect(!policy.contains("*"))
            let strict = PageAssets.contentSecurityPolicy
            #expect(policy == strict.replacingOccurrences(of: "form-action 'self'", with: "form-action 'self' https://magazin.example http://127.0.0.1:9000"),
                    "every other directive is the page's own")

            let launch = try await client.postConsoleForm("/console/launch", form: "user=juergen&app=healthmagazin")
            #expect(launch.status == .seeOther)
            #expect(launch.headers[.location]?.hasPrefix("https://magazin.example/app?launch=") == true)
            #expect(launch.headers[.contentSecurityPolicy] == policy)
        }
    }

    @Test("The app's own page, its 401 and a 404 keep form-action 'self' only")
    func otherRoutesKeepTheStrictPolicy() async throws {
        let registry = try Registry(apps: [Self.magazin, Self.bonus])
        let server = try TestServer(configuration: Self.configuration(registry: registry))
        try await server.test { client in
            for uri in ["/apps/served", "/nowhere", "/healthz"] {
                let response = try await client.get(uri)
                #expect(response.headers[.contentSecurityPolicy] == PageAssets.contentSecurityPolicy, "\(uri)")
            }
        }
    }

    @Test("An origin CSP cannot name exactly (an IPv6 literal) is left out, not widened to a wildcard")
    func ipv6OriginIsLeftOut() async throws {
        let ipv6 = try WebApp(id: "v6", title: "IPv6", url: RegisteredURL("http://[::1]:9001/v6"))
        let registry = try Registry(apps: [Self.magazin, ipv6])
        let server = try TestServer(configuration: Self.configuration(registry: registry))
        try await server.test { client in
            let policy = try #require(try await client.get("/").headers[.contentSecurityPolicy])
            #expect(Self.directive("form-action", in: policy) == "form-action 'self' https://magazin.example")
            #expect(Self.origins(in: policy) == ["https://magazin.example"])
        }
    }
}
