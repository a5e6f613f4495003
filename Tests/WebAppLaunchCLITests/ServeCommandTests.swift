import Foundation
import Testing
import WebAppLaunchTestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("serve runs the web app on the port asked for and stops cleanly on SIGTERM")
struct ServeCommandTests {
    /// The demo user serve prints launches for (`DevelopmentDefaults.demoUser`).
    static let demoFirstName = "Erika"
    static let demoAccessToken = "demo-access-token-not-a-real-credential"

    @Test("serve prints working demo launch URLs for its port, accepts each launch once and exits 0 on SIGTERM")
    func servesAndStops() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let port = try freeLoopbackPort()
        let server = try BackgroundSubprocess(
            CLI.executablePath,
            ["serve", "--port", "\(port)", "--registry", RepositoryFile.sampleRegistry, "--metrics-address", "127.0.0.1:0"],
            environment: ["XDG_STATE_HOME": directory.path("state")],
            standardErrorPath: directory.path("serve.log")
        )
        let banner = try await server.firstLine(within: .seconds(15)) { $0.hasPrefix("webapp-launch serving") }
        let store = directory.path("state") + "/webapp-launch/replay.sqlite"
        #expect(banner == "webapp-launch serving on http://127.0.0.1:\(port) (replay store: sqlite:\(store))")
        var demoURLs: [String] = []
        for _ in 0..<2 {
            demoURLs.append(try await server.firstLine(within: .seconds(5)) { $0.contains("launch=") }.trimmingCharacters(in: .whitespaces))
        }
        #expect(demoURLs[0].hasPrefix("http://127.0.0.1:\(port)/apps/healthmagazin?launch="))
        #expect(demoURLs[1].hasPrefix("http://127.0.0.1:\(port)/apps/bonusprogramm?tenant=demo&launch="))

        // The sample registry has the app on port 8080, not this one: verify never takes the
        // app from the token (SPEC.md §15.2), so it is named.
        let verified = try await CLI.run(["verify", demoURLs[0], "--app", "healthmagazin", "--json"])
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.standardOutput.contains(#""firstname":"\#(Self.demoFirstName)""#))

        for url in demoURLs {
            #expect(try await httpStatus(of: url) == 303, "log:\n\(server.standardError)")
            #expect(try await httpStatus(of: url) == 401, "a launch is accepted once")
        }

        let registry = directory.path("registry.json")
        let sample = try String(contentsOfFile: RepositoryFile.sampleRegistry, encoding: .utf8)
        try sample.replacingOccurrences(of: ":8080/", with: ":\(port)/").write(toFile: registry, atomically: true, encoding: .utf8)
        let minted = try await CLI.mint(keyring: RepositoryFile.developmentKeyring, registry: registry)
        #expect(minted.hasPrefix("http://127.0.0.1:\(port)/apps/healthmagazin?launch="))
        #expect(try await httpStatus(of: minted) == 303)
        #expect(try await httpStatus(of: minted) == 401)
        #expect(try await httpStatus(of: "http://127.0.0.1:\(port)/apps/healthmagazin") == 401, "no launch, no session")

        #expect(try await server.stop(with: SIGTERM, within: .seconds(10)) == 0, "log:\n\(server.standardError)")
        let log = server.standardError
        // The build line comes first and says the event loops run the tasks (EventLoopExecutor).
        let buildLine = log.split(separator: "\n").first.map(String.init) ?? ""
        #expect(buildLine.contains("webapp-launch ") && buildLine.contains("executor=event-loops"), "log:\n\(log)")
        for secret in [Self.demoAccessToken, TestUser.accessToken, token(of: minted)] {
            #expect(!log.contains(secret), "the server log leaks a secret")
        }

        // Review finding 6: the default store survives a restart, so a used launch stays used.
        let restarted = try BackgroundSubprocess(
            CLI.executablePath,
            ["serve", "--port", "\(port)", "--registry", RepositoryFile.sampleRegistry, "--metrics-address", "127.0.0.1:0"],
            environment: ["XDG_STATE_HOME": directory.path("state")],
            standardErrorPath: directory.path("serve-restarted.log")
        )
        _ = try await restarted.firstLine(within: .seconds(15)) { $0.hasPrefix("webapp-launch serving") }
        #expect(try await httpStatus(of: minted) == 401, "a launch used before the restart is still used after it")
        #expect(try await httpStatus(of: demoURLs[0]) == 401)
        #expect(try await restarted.stop(with: SIGTERM, within: .seconds(10)) == 0)
    }

    @Test("metrics are served on their own loopback listener and never on the app's public one")
    func metricsOnTheirOwnListener() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let port = try freeLoopbackPort()
        let metricsPort = try freeLoopbackPort()
        let server = try BackgroundSubprocess(
            CLI.executablePath,
            ["serve", "--port", "\(port)", "--replay", "memory", "--metrics-address", "127.0.0.1:\(metricsPort)"],
            standardErrorPath: directory.path("serve.log")
        )
        let line = try await server.firstLine(within: .seconds(15)) { $0.hasPrefix("metrics:") }
        #expect(line.contains("http://127.0.0.1:\(metricsPort)/metrics"))
        #expect(try await httpStatus(of: "http://127.0.0.1:\(port)/metrics") == 404)
        #expect(try await httpStatus(of: "http://127.0.0.1:\(metricsPort)/metrics") == 200)
        #expect(try await httpStatus(of: "http://127.0.0.1:\(metricsPort)/apps/healthmagazin") == 404, "the metrics listener serves nothing else")
        #expect(try await server.stop(with: SIGTERM, within: .seconds(10)) == 0)
    }

    @Test("serve --host 0.0.0.0 with the development keyring refuses to start: exit 2, one line about development keys")
    func refusesDevelopmentKeysOnPublicAddress() async throws {
        let port = try freeLoopbackPort()
        let result = try await CLI.run(["serve", "--host", "0.0.0.0", "--port", "\(port)"], timeout: .seconds(10))
        #expect(result.status == 2, "\(result)")
        #expect(result.standardOutput.isEmpty)
        #expect(result.errorLines.count == 1, "\(result)")
        #expect(result.standardError.contains("development keys"), "\(result)")
    }

    @Test("serve with a production keyring and no app served at its address refuses to start with exit 2")
    func refusesWithoutApps() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyring = try await makeKeyring(in: directory, development: false)
        let result = try await CLI.run(["serve", "--port", "\(try freeLoopbackPort())", "--keyring", keyring], timeout: .seconds(10))
        #expect(result.status == 2, "\(result)")
        #expect(result.errorLines.count == 1, "\(result)")
        #expect(result.standardError.contains("no registered app is served"))
    }
}
