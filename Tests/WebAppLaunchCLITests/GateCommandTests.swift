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

    /// The echo upstream, `webapp-launch gate` in front of it (started with `options`), and one
    /// launch exchanged through the gate.
    struct GateWithSession {
        let upstream: BackgroundSubprocess
        let gate: BackgroundSubprocess
        let port: Int
        let launchURL: String
        /// The launch's answer: status line and headers.
        let exchange: String
        /// `webapp_launch_session=…`, from the exchange's Set-Cookie.
        let cookie: String

        static func start(in directory: TemporaryDirectory, options: [String] = []) async throws -> GateWithSession {
            let upstream = try BackgroundSubprocess("/usr/bin/python3", [upstreamScript, "0"], standardErrorPath: directory.path("upstream.log"))
            let upstreamPort = try #require(Int(try await upstream.firstLine(within: .seconds(15)) { $0.hasPrefix("listening ") }.dropFirst("listening ".count)))
            let port = try freeLoopbackPort()
            let gate = try BackgroundSubprocess(
                CLI.executablePath,
                ["gate", "--app", "healthmagazin", "--public-url", "http://127.0.0.1:\(port)/", "--upstream", "http://127.0.0.1:\(upstreamPort)",
                 "--keyring", RepositoryFile.developmentKeyring, "--replay", "memory", "--port", "\(port)"] + options,
                standardErrorPath: directory.path("gate.log")
            )
            _ = try await gate.firstLine(within: .seconds(15)) { $0.hasPrefix("gate listening on http://127.0.0.1:\(port)") }

            let registry = directory.path("registry.json")
            try #"{"apps":[{"id":"healthmagazin","title":"Gesundheitsmagazin","url":"http://127.0.0.1:\#(port)/"}]}"#
                .write(toFile: registry, atomically: true, encoding: .utf8)
            let launchURL = try await CLI.mint(keyring: RepositoryFile.developmentKeyring, registry: registry)
            let exchange = try await runSubprocess("/usr/bin/curl", ["-s", "-o", "/dev/null", "-D", "-", "--max-time", "10", launchURL], timeout: .seconds(15))
            let cookieLine = try #require(
                exchange.standardOutput.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: webapp_launch_session=") },
                "\(exchange) log:\n\(gate.standardError)"
            )
            let cookie = String(cookieLine.dropFirst("set-cookie: ".count).prefix { $0 != ";" })
            return GateWithSession(upstream: upstream, gate: gate, port: port, launchURL: launchURL, exchange: exchange.standardOutput, cookie: cookie)
        }
    }

    @Test("gate exchanges a launch, proxies with the identity headers, logs no personal data and exits 0 on SIGTERM")
    func proxiesAndStops() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let running = try await GateWithSession.start(in: directory)
        let (upstream, gate, port, launchURL, cookie) = (running.upstream, running.gate, running.port, running.launchURL, running.cookie)
        #expect(running.exchange.hasPrefix("HTTP/1.1 303"), "\(running.exchange) log:\n\(gate.standardError)")

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

    /// The port of the gate's upstream connection that carried each of two requests, `pause`
    /// apart, through a gate started with `options` (the echo upstream reports its peer's port).
    static func upstreamPorts(gateOptions options: [String], pause: Duration) async throws -> [Int] {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let running = try await GateWithSession.start(in: directory, options: options)
        let (upstream, gate, port, cookie) = (running.upstream, running.gate, running.port, running.cookie)
        var ports: [Int] = []
        for index in 0..<2 {
            if index == 1 { try await Task.sleep(for: pause) }
            let answer = try await runSubprocess("/usr/bin/curl", ["-s", "--max-time", "10", "-H", "Cookie: \(cookie)", "http://127.0.0.1:\(port)/echo"], timeout: .seconds(15))
            let object = try JSONSerialization.jsonObject(with: Data(answer.standardOutput.utf8)) as? [String: Any]
            ports.append(try #require(object?["peer_port"] as? Int, "\(answer) log:\n\(gate.standardError)"))
        }
        #expect(try await gate.stop(with: SIGTERM, within: .seconds(10)) == 0, "log:\n\(gate.standardError)")
        _ = try? await upstream.stop(within: .seconds(5))
        return ports
    }

    @Test("gate --upstream-idle-timeout reaches the upstream pool: a connection idle for 3 s is closed under 1 s and the next request opens another, and kept under 3600 s")
    func upstreamIdleTimeoutOption() async throws {
        // Only the option differs between the two gates, and each bound holds however slow the
        // machine is: 3 s of quiet is always past 1 s and never past 3600 s (the echo upstream
        // itself never closes an idle connection).
        let short = try await Self.upstreamPorts(gateOptions: ["--upstream-idle-timeout", "1"], pause: .seconds(3))
        #expect(short[0] != short[1], "a connection idle for 3 s outlived a 1 s idle timeout: \(short)")
        let long = try await Self.upstreamPorts(gateOptions: ["--upstream-idle-timeout", "3600"], pause: .seconds(3))
        #expect(long[0] == long[1], "a connection idle for 3 s was closed under a 3600 s idle timeout: \(long)")
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

    @Test("gate --metrics-address serves the gate's counts on that address only: the launch it exchanged, nothing personal")
    func metricsListener() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let metricsPort = try freeLoopbackPort()
        let running = try await GateWithSession.start(in: directory, options: ["--metrics-address", "127.0.0.1:\(metricsPort)"])
        #expect(running.exchange.hasPrefix("HTTP/1.1 303"), "\(running.exchange) log:\n\(running.gate.standardError)")
        let scrape = try await runSubprocess("/usr/bin/curl", ["-s", "--max-time", "10", "http://127.0.0.1:\(metricsPort)/metrics"], timeout: .seconds(15))
        let samples = PrometheusSamples.parse(scrape.standardOutput)
        #expect(samples[#"webapp_launch_accepted_total{app="healthmagazin"}"#] == 1, "\(scrape)")
        for secret in [TestUser.accessToken, TestUser.firstName, TestUser.lastName, TestUser.kvnumber, running.cookie] {
            #expect(!scrape.standardOutput.contains(secret))
        }
        #expect(try await httpStatus(of: "http://127.0.0.1:\(running.port)/metrics") == 401, "not on the gate's own listener")
        #expect(try await running.gate.stop(with: SIGTERM, within: .seconds(10)) == 0)
        _ = try? await running.upstream.stop(within: .seconds(5))
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
            // Trusted authorities for an upstream without TLS, or read from a file that holds none.
            ["--app", "healthmagazin", "--public-url", "http://127.0.0.1:4180/", "--upstream", "http://127.0.0.1:9", "--upstream-ca-file", RepositoryFile.developmentKeyring],
            ["--app", "healthmagazin", "--public-url", "http://127.0.0.1:4180/", "--upstream", "https://127.0.0.1:9", "--upstream-ca-file", RepositoryFile.developmentKeyring],
            ["--app", "healthmagazin", "--public-url", "http://127.0.0.1:4180/", "--upstream", "https://127.0.0.1:9", "--upstream-ca-file", "/nonexistent/ca.pem"],
            ["--app", "healthmagazin", "--public-url", "http://127.0.0.1:4180/", "--auth-request", "--metrics-address", "localhost"],
        ]
    )
    func refusesBadConfiguration(arguments: [String]) async throws {
        let result = try await CLI.run(["gate", "--keyring", RepositoryFile.developmentKeyring] + arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.errorLines.count == 1, "\(result)")
        #expect(result.standardError.hasPrefix("error: "), "\(result)")
    }
}
