import Foundation
import Testing
import WebAppLaunchTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Issue 35 at the entry points: SIGHUP reloads what each one reads at startup, with the
/// same checks; a file that would not start is refused with one log line and the old
/// configuration stays; SIGTERM still exits 0. One row per entry point.
@Suite("SIGHUP reloads serve, gate and launcher; a bad file keeps the old configuration")
struct ReloadCommandTests {
    enum EntryPoint: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// `serve`; the gate in the auth_request shape; the gate as a reverse proxy to an
        /// `https` upstream it trusts through `--upstream-ca-file` (nothing listens there:
        /// connections open only for proxied requests).
        case serve, gate, gateProxy
        var testDescription: String { rawValue }

        /// The registered URL of the app this entry point serves on `port`.
        func appURL(port: Int) -> String {
            switch self {
            case .serve: "http://127.0.0.1:\(port)/apps/healthmagazin"
            case .gate, .gateProxy: "http://127.0.0.1:\(port)/"
            }
        }

        func arguments(port: Int, keyring: String, registry: String, upstreamAuthority: String) -> [String] {
            switch self {
            case .serve:
                ["serve", "--port", "\(port)", "--keyring", keyring, "--registry", registry, "--app", "healthmagazin",
                 "--replay", "memory", "--metrics-address", "none"]
            case .gate:
                ["gate", "--auth-request", "--port", "\(port)", "--keyring", keyring, "--app", "healthmagazin",
                 "--public-url", appURL(port: port), "--replay", "memory"]
            case .gateProxy:
                ["gate", "--upstream", "https://127.0.0.1:9", "--upstream-ca-file", upstreamAuthority, "--port", "\(port)",
                 "--keyring", keyring, "--app", "healthmagazin", "--public-url", appURL(port: port), "--replay", "memory"]
            }
        }

        var banner: String {
            switch self {
            case .serve: "webapp-launch serving"
            case .gate, .gateProxy: "gate listening"
            }
        }
    }

    /// An entry point running on a fresh production launcher keyring's exported app keyring,
    /// with a registry of its one app at its port: the start every row of this suite shares.
    struct Started {
        let directory: TemporaryDirectory
        let port: Int
        /// The launcher keyring (root secrets), which mints.
        let launcher: String
        let registry: String
        /// The app keyring the entry point reads (and reloads).
        let appKeyring: String
        /// The `--upstream-ca-file` of ``EntryPoint/gateProxy`` (a copy of a throwaway certificate).
        let upstreamAuthority: String
        let process: BackgroundSubprocess

        static func start(_ entryPoint: EntryPoint, extraArguments: [String] = []) async throws -> Self {
            let directory = try TemporaryDirectory()
            let port = try freeLoopbackPort()
            let launcher = try await makeKeyring(in: directory, development: false)
            let registry = directory.path("registry.json")
            try #"{"apps": [{"id": "healthmagazin", "title": "Gesundheitsmagazin", "url": "\#(entryPoint.appURL(port: port))"}]}"#
                .write(toFile: registry, atomically: true, encoding: .utf8)
            let appKeyring = directory.path("healthmagazin.keyring.json")
            let export = try await CLI.run(["keygen", "--export-app", "healthmagazin", "--keyring", launcher, "--out", appKeyring])
            guard export.status == 0 else { throw SubprocessError(message: "keygen --export-app exited \(export.status)") }
            let upstreamAuthority = directory.path("upstream-ca.pem")
            if entryPoint == .gateProxy {
                try FileManager.default.copyItem(atPath: try await TestCertificate().certificate, toPath: upstreamAuthority)
                guard chmod(upstreamAuthority, 0o644) == 0 else { throw SubprocessError(message: "chmod \(upstreamAuthority) failed") }
            }
            let process = try BackgroundSubprocess(
                CLI.executablePath,
                entryPoint.arguments(port: port, keyring: appKeyring, registry: registry, upstreamAuthority: upstreamAuthority) + extraArguments,
                standardErrorPath: directory.path("\(entryPoint).log")
            )
            _ = try await process.firstLine(within: .seconds(15)) { $0.contains(entryPoint.banner) }
            return Self(
                directory: directory, port: port, launcher: launcher, registry: registry, appKeyring: appKeyring,
                upstreamAuthority: upstreamAuthority, process: process
            )
        }
    }

    /// Waits (bounded) until the log holds `count` lines containing `text`.
    static func waitForLog(_ process: BackgroundSubprocess, _ text: String, count: Int) async throws -> Bool {
        for _ in 0..<200 {
            if process.standardError.components(separatedBy: "\n").filter({ $0.contains(text) }).count >= count { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test("a new app keyring is taken on SIGHUP, launches under the new key verify; a keyring readable by others is refused and the old one stays", arguments: EntryPoint.allCases)
    func reloadsOnSIGHUP(entryPoint: EntryPoint) async throws {
        let started = try await Started.start(entryPoint)
        defer { started.directory.remove() }
        let (directory, port, launcher, registry, appKeyring, process) =
            (started.directory, started.port, started.launcher, started.registry, started.appKeyring, started.process)
        #expect(try await httpStatus(of: try await CLI.mint(keyring: launcher, registry: registry)) == 303)

        // The runbook's first steps: a new key in a copy, exported, the verifier reloaded.
        let next = directory.path("launcher.next.json")
        try FileManager.default.copyItem(atPath: launcher, toPath: next)
        #expect(chmod(next, 0o600) == 0)
        #expect(try await CLI.run(["keygen", "--kid", "k2", "--keyring", next]).status == 0)
        let exported = directory.path("healthmagazin.next.keyring.json")
        #expect(try await CLI.run(["keygen", "--export-app", "healthmagazin", "--keyring", next, "--out", exported]).status == 0)
        #expect(rename(exported, appKeyring) == 0)
        #expect(kill(process.pid, SIGHUP) == 0)
        #expect(try await Self.waitForLog(process, "config.reloaded", count: 1), "log:\n\(process.standardError)")
        #expect(try await httpStatus(of: try await CLI.mint(keyring: next, registry: registry)) == 303, "log:\n\(process.standardError)")
        #expect(try await httpStatus(of: try await CLI.mint(keyring: launcher, registry: registry)) == 303, "the old key still verifies")

        // A keyring readable by others: refused on SIGHUP, one line, the old configuration serves on.
        #expect(chmod(appKeyring, 0o644) == 0)
        #expect(kill(process.pid, SIGHUP) == 0)
        #expect(try await Self.waitForLog(process, "config.reload_refused", count: 1), "log:\n\(process.standardError)")
        let refusals = process.standardError.components(separatedBy: "\n").filter { $0.contains("config.reload_refused") }
        #expect(refusals.count == 1)
        #expect(refusals.first?.contains("group or others") == true, "\(refusals)")
        #expect(try await httpStatus(of: try await CLI.mint(keyring: next, registry: registry)) == 303)
        #expect(try await httpStatus(of: "http://127.0.0.1:\(port)/readyz") == 200)

        #expect(try await process.stop(with: SIGTERM, within: .seconds(10)) == 0, "log:\n\(process.standardError)")
    }

    @Test("SIGTERM turns /readyz to 503 first while the listener still serves, then the process drains and exits 0", arguments: EntryPoint.allCases)
    func readinessOffFirst(entryPoint: EntryPoint) async throws {
        let started = try await Started.start(entryPoint, extraArguments: ["--shutdown-delay", "15"])
        defer { started.directory.remove() }
        let (port, process) = (started.port, started.process)
        let readyz = "http://127.0.0.1:\(port)/readyz"
        #expect(try await httpStatus(of: readyz) == 200)
        #expect(kill(process.pid, SIGTERM) == 0)
        #expect(try await Self.waitForLog(process, "shutdown.readiness_off", count: 1), "log:\n\(process.standardError)")
        // An answer at all proves the listener still serves while readiness is off.
        #expect(try await httpStatus(of: readyz) == 503, "readiness is off while the listener still answers")
        // Signal 0: only wait; the SIGTERM above is the one being tested. The delay is long
        // (15 s) so that a machine busy with a parallel suite still asks /readyz inside it.
        #expect(try await process.stop(with: 0, within: .seconds(40)) == 0, "log:\n\(process.standardError)")
    }

    @Test("gate with an https upstream: SIGHUP reads --upstream-ca-file again beside the keyring; a file without a certificate is refused in one line naming it, and the keyring still reloads")
    func gateReloadsUpstreamAuthority() async throws {
        let metricsPort = try freeLoopbackPort()
        let started = try await Started.start(.gateProxy, extraArguments: ["--metrics-address", "127.0.0.1:\(metricsPort)"])
        defer { started.directory.remove() }
        let process = started.process
        func lines(_ event: String, config: String) -> [String] {
            process.standardError.components(separatedBy: "\n").filter { $0.contains(event) && $0.contains("config=\(config)") }
        }
        #expect(kill(process.pid, SIGHUP) == 0)
        #expect(try await Self.waitForLog(process, "config=upstream-trust", count: 1), "log:\n\(process.standardError)")
        #expect(lines("config.reloaded", config: "upstream-trust").count == 1)

        try "no certificate here\n".write(toFile: started.upstreamAuthority, atomically: true, encoding: .utf8)
        #expect(kill(process.pid, SIGHUP) == 0)
        #expect(try await Self.waitForLog(process, "config.reload_refused", count: 1), "log:\n\(process.standardError)")
        let refusals = lines("config.reload_refused", config: "upstream-trust")
        #expect(refusals.count == 1)
        #expect(refusals.first?.contains(started.upstreamAuthority) == true, "\(refusals)")
        #expect(lines("config.reloaded", config: "keyring").count == 2, "log:\n\(process.standardError)")
        #expect(try await httpStatus(of: "http://127.0.0.1:\(started.port)/readyz") == 200)
        // Counted on the gate's metrics listener.
        let metrics = try await Self.body(of: "http://127.0.0.1:\(metricsPort)/metrics")
        for sample in [
            #"webapp_launch_config_reloads_total{config="keyring",result="reloaded"} 2"#,
            #"webapp_launch_config_reloads_total{config="upstream-trust",result="reloaded"} 1"#,
            #"webapp_launch_config_reloads_total{config="upstream-trust",result="kept"} 1"#,
        ] {
            #expect(metrics.contains(sample), "\(sample):\n\(metrics)")
        }
        #expect(try await process.stop(with: SIGTERM, within: .seconds(10)) == 0, "log:\n\(process.standardError)")
    }

    @Test("launcher: SIGHUP reloads the registry into the catalogue; a broken registry keeps the old; /readyz is 503 while the provider is unreachable")
    func launcherReloads() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let port = try freeLoopbackPort()
        let closedPort = try freeLoopbackPort()
        let registry = directory.path("registry.json")
        let sample = try String(contentsOfFile: RepositoryFile.sampleRegistry, encoding: .utf8)
        try sample.write(toFile: registry, atomically: true, encoding: .utf8)
        let metricsPort = try freeLoopbackPort()
        let process = try BackgroundSubprocess(
            CLI.executablePath,
            ["launcher", "--port", "\(port)", "--registry", registry, "--issuer", "http://127.0.0.1:\(closedPort)", "--provider-timeout", "1",
             "--metrics-address", "127.0.0.1:\(metricsPort)"],
            standardErrorPath: directory.path("launcher.log")
        )
        _ = try await process.firstLine(within: .seconds(15)) { $0.hasPrefix("webapp-launch launcher on") }
        let catalogue = "http://127.0.0.1:\(port)/v1/catalogue"
        #expect(try await Self.body(of: catalogue).contains("healthmagazin"))
        #expect(!(try await Self.body(of: catalogue).contains("\"news\"")))
        #expect(try await httpStatus(of: "http://127.0.0.1:\(port)/readyz") == 503)

        let added = sample.replacingOccurrences(of: #""apps": ["#, with: #""apps": [{"id": "news", "title": "News", "summary": "News.", "url": "http://127.0.0.1:8080/apps/news"},"#)
        try added.write(toFile: registry, atomically: true, encoding: .utf8)
        #expect(kill(process.pid, SIGHUP) == 0)
        #expect(try await Self.waitForLog(process, "config.reloaded", count: 1), "log:\n\(process.standardError)")
        #expect(try await Self.body(of: catalogue).contains("\"news\""))

        try "{".write(toFile: registry, atomically: true, encoding: .utf8)
        #expect(kill(process.pid, SIGHUP) == 0)
        #expect(try await Self.waitForLog(process, "config.reload_refused", count: 1), "log:\n\(process.standardError)")
        #expect(try await Self.body(of: catalogue).contains("\"news\""), "the last good registry stays")
        // Both reloads counted on the launcher's metrics listener, with its launches.
        let metrics = try await Self.body(of: "http://127.0.0.1:\(metricsPort)/metrics")
        #expect(metrics.contains(#"webapp_launch_config_reloads_total{config="keyring+registry",result="reloaded"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"webapp_launch_config_reloads_total{config="keyring+registry",result="kept"} 1"#), "\(metrics)")
        #expect(try await process.stop(with: SIGTERM, within: .seconds(10)) == 0, "log:\n\(process.standardError)")
    }

    @Test("launcher --registry http://127.0.0.1…: fetched at startup, again on SIGHUP; a CMS that is down keeps the last good copy; a plain-http CMS off loopback is refused")
    func launcherRegistryFromURL() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cmsPort = try freeLoopbackPort()
        let port = try freeLoopbackPort()
        let sample = try String(contentsOfFile: RepositoryFile.sampleRegistry, encoding: .utf8)
        try sample.write(toFile: directory.path("registry.json"), atomically: true, encoding: .utf8)
        let cms = try BackgroundSubprocess(
            "/usr/bin/python3", ["-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", directory.path(""), "\(cmsPort)"],
            standardErrorPath: directory.path("cms.log")
        )
        _ = try await cms.firstLine(within: .seconds(15)) { $0.hasPrefix("Serving HTTP") }
        let registryURL = "http://127.0.0.1:\(cmsPort)/registry.json"
        let refused = try await CLI.run(["launcher", "--registry", "http://cms.example/registry.json", "--issuer", "http://127.0.0.1:1"])
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.standardError.contains("http only on loopback"))
        let process = try BackgroundSubprocess(
            CLI.executablePath,
            ["launcher", "--port", "\(port)", "--registry", registryURL, "--registry-refresh", "0", "--issuer", "http://127.0.0.1:1", "--provider-timeout", "1"],
            standardErrorPath: directory.path("launcher.log")
        )
        _ = try await process.firstLine(within: .seconds(15)) { $0.hasPrefix("webapp-launch launcher on") }
        let catalogue = "http://127.0.0.1:\(port)/v1/catalogue"
        #expect(!(try await Self.body(of: catalogue).contains("\"news\"")))
        let added = sample.replacingOccurrences(of: #""apps": ["#, with: #""apps": [{"id": "news", "title": "News", "summary": "News.", "url": "http://127.0.0.1:8080/apps/news"},"#)
        try added.write(toFile: directory.path("registry.json"), atomically: true, encoding: .utf8)
        #expect(kill(process.pid, SIGHUP) == 0)
        #expect(try await Self.waitForLog(process, "config.reloaded", count: 1), "log:\n\(process.standardError)")
        #expect(try await Self.body(of: catalogue).contains("\"news\""))
        _ = try await cms.stop(with: SIGTERM, within: .seconds(10))
        #expect(kill(process.pid, SIGHUP) == 0)
        #expect(try await Self.waitForLog(process, "config.reload_refused", count: 1), "log:\n\(process.standardError)")
        #expect(try await Self.body(of: catalogue).contains("\"news\""), "the last good copy stays while the CMS is down")
        #expect(try await process.stop(with: SIGTERM, within: .seconds(10)) == 0, "log:\n\(process.standardError)")
    }

    static func body(of url: String) async throws -> String {
        let result = try await runSubprocess("/usr/bin/curl", ["-s", "--max-time", "5", url], timeout: .seconds(10))
        guard result.status == 0 else { throw SubprocessError(message: "curl failed: \(result)") }
        return result.standardOutput
    }
}
