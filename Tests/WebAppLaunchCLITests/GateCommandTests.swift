import Foundation
import Testing
import WebAppLaunchTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `webapp-launch gate`, the built binary, in front of the Python echo upstream of the gate's
/// own tests.
@Suite("gate runs as a reverse proxy in front of a Python upstream and refuses bad configuration")
struct GateCommandTests {
    static let upstreamScript = repositoryRoot.appendingPathComponent("Tests/WebAppLaunchGateTests/Fixtures/echo_upstream.py").path

    @Test("gate exchanges a launch, proxies with the identity headers, logs no personal data and exits 0 on SIGTERM")
    func proxiesAndStops() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let upstream = try BackgroundSubprocess("/usr/bin/python3", [Self.upstreamScript, "0"], standardErrorPath: directory.path("upstream.log"))
        let upstreamPort = try #require(Int(try await upstream.firstLine(within: .seconds(15)) { $0.hasPrefix("listening ") }.dropFirst("listening ".count)))
        let port = try freeLoopbackPort()
        let gate = try BackgroundSubprocess(
            CLI.executablePath,
            ["gate", "--app", "healthmagazin", "--public-url", "http://127.0.0.1:\(port)/", "--upstream", "http://127.0.0.1:\(upstreamPort)",
             "--keyring", RepositoryFile.developmentKeyring, "--replay", "memory", "--port", "\(port)"],
            standardErrorPath: directory.path("gate.log")
        )
        _ = try await gate.firstLine(within: .seconds(15)) { $0.hasPrefix("gate listening on http://127.0.0.1:\(port)") }

        let registry = directory.path("registry.json")
        try #"{"apps":[{"id":"healthmagazin","title":"Gesundheitsmagazin","url":"http://127.0.0.1:\#(port)/"}]}"#
            .write(toFile: registry, atomically: true, encoding: .utf8)
        let launchURL = try await CLI.mint(keyring: RepositoryFile.developmentKeyring, registry: registry)
        let exchange = try await runSubprocess("/usr/bin/curl", ["-s", "-o", "/dev/null", "-D", "-", "--max-time", "10", launchURL], timeout: .seconds(15))
        #expect(exchange.standardOutput.hasPrefix("HTTP/1.1 303"), "\(exchange) log:\n\(gate.standardError)")
        let cookieLine = try #require(exchange.standardOutput.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: webapp_launch_session=") })
        let cookie = String(cookieLine.dropFirst("set-cookie: ".count).prefix { $0 != ";" })

        let page = try await runSubprocess("/usr/bin/curl", [
            "-s", "--max-time", "10", "-H", "Cookie: \(cookie)", "-H", "X-WebApp-Launch-Subject: Z999999999",
            "http://127.0.0.1:\(port)/page",
        ], timeout: .seconds(15))
        #expect(page.standardOutput.contains("Hallo Jürgen O&#x27;Brien"), "\(page)")
        #expect(try await httpStatus(of: "http://127.0.0.1:\(port)/page") == 401)
        #expect(try await httpStatus(of: launchURL) == 401, "a launch is accepted once")

        #expect(try await gate.stop(with: SIGTERM, within: .seconds(10)) == 0, "log:\n\(gate.standardError)")
        let log = gate.standardError
        for secret in [TestUser.accessToken, TestUser.firstName, TestUser.lastName, TestUser.kvnumber, cookie] {
            #expect(!log.contains(secret), "the gate log leaks personal data")
        }
        _ = try? await upstream.stop(within: .seconds(5))
    }

    @Test("gate --print-nginx-config prints exactly Docs/nginx-auth-request.conf for the example, and refuses without --auth-request")
    func printsTheShippedNginxConfiguration() async throws {
        let printed = try await CLI.run([
            "gate", "--auth-request", "--app", "healthmagazin", "--public-url", "http://127.0.0.1:8080/", "--port", "4180", "--print-nginx-config",
        ])
        #expect(printed.status == 0, "\(printed)")
        let shipped = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/nginx-auth-request.conf"), encoding: .utf8)
        #expect(printed.standardOutput == shipped, "regenerate Docs/nginx-auth-request.conf with this command")
        let server = try await CLI.run([
            "gate", "--auth-request", "--app", "healthmagazin", "--public-url", "http://127.0.0.1:8080/", "--print-nginx-config", "--nginx-config-part", "server",
        ])
        #expect(server.status == 0)
        let lines = server.standardOutput.split(separator: "\n")
        #expect(lines.count > 20)
        #expect(lines.allSatisfy { shipped.contains("\n        " + $0 + "\n") }, "the server part is the shipped server block")
        let proxy = try await CLI.run([
            "gate", "--upstream", "http://127.0.0.1:9", "--app", "healthmagazin", "--public-url", "http://127.0.0.1:8080/", "--print-nginx-config",
        ])
        #expect(proxy.status == 2)
    }

    @Test(
        "gate refuses a bad configuration with exit 2 and one line",
        arguments: [
            ["--app", "healthmagazin", "--public-url", "http://127.0.0.1:4180/"],
            ["--app", "healthmagazin", "--public-url", "http://127.0.0.1:4180/", "--upstream", "http://127.0.0.1:9", "--auth-request"],
            ["--app", "healthmagazin", "--public-url", "http://127.0.0.1:4180/", "--upstream", "http://127.0.0.1:9/app"],
            ["--app", "healthmagazin", "--public-url", "http://127.0.0.1:4180/", "--upstream", "ftp://127.0.0.1:9"],
            ["--app", "healthmagazin", "--public-url", "not a url", "--auth-request"],
            ["--app", "Bad App!", "--public-url", "http://127.0.0.1:4180/", "--auth-request"],
            ["--app", "healthmagazin", "--public-url", "http://127.0.0.1:4180/", "--auth-request", "--host", "0.0.0.0"],
            ["--app", "healthmagazin", "--public-url", "http://127.0.0.1:4180/", "--auth-request", "--replay", "redis://x"],
            ["--app", "healthmagazin", "--public-url", "http://127.0.0.1:4180/", "--auth-request", "--unauthenticated-redirect", "//evil.example"],
        ]
    )
    func refusesBadConfiguration(arguments: [String]) async throws {
        let result = try await CLI.run(["gate", "--keyring", RepositoryFile.developmentKeyring] + arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.errorLines.count == 1, "\(result)")
        #expect(result.standardError.hasPrefix("error: "), "\(result)")
    }
}
