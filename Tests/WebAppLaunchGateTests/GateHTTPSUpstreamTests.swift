import Foundation
#if canImport(Glibc)
import Glibc
#endif
import NIOHTTP1
import Synchronization
import Testing
import WebAppLaunch
import WebAppLaunchGate
import WebAppLaunchMiddleware
import WebAppLaunchReload
import WebAppLaunchTestSupport
import WebAppRegistry

/// The gate in front of an `https` upstream (the Python upstream over TLS, with a throwaway
/// certificate made by openssl): the user's identity goes only to a server whose
/// certificate the gate could check, on both of its request paths.
@Suite("Gate: an https upstream is authenticated before it gets a request", .serialized)
struct GateHTTPSUpstreamTests {
    /// A gate proxying to `upstream`, trusting `trust`, with its log captured.
    private func withHTTPSGate(
        to upstream: EchoUpstream,
        trust: UpstreamTrust,
        _ body: @Sendable (RegisteredURL, TestClient, LogCapture, ServerMetrics) async throws -> Void
    ) async throws {
        let logs = LogCapture()
        let metrics = Mutex<ServerMetrics?>(nil)
        try await withGate(
            mode: .reverseProxy(upstream: try GateUpstream(upstream.origin)), adjust: { $0.upstreamTrust = trust }, logs: logs,
            started: { gate in metrics.withLock { $0 = gate.metrics } }
        ) { publicURL, client in
            try await body(publicURL, client, logs, try #require(metrics.withLock { $0 }))
        }
    }

    @Test("trusting the authority of --upstream-ca-file, every request reaches the https upstream over TLS with the identity: GETs (a new connection, then a kept one) and a POST")
    func trustedAuthority() async throws {
        let certificate = try await TestCertificate()
        let upstream = try await EchoUpstream(tls: certificate)
        #expect(upstream.origin.hasPrefix("https://"))
        try await withHTTPSGate(to: upstream, trust: .certificateAuthorities(pemFile: certificate.certificate)) { publicURL, client, _, _ in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            // The first GET opens the connection (Hummingbird's path); the second finds it idle
            // and is relayed on the event loop; the POST takes Hummingbird's path with a body.
            let first = try await client.send(publicURL.description + "a?n=1", headers: [("Cookie", cookie)])
            let second = try await client.send(publicURL.description + "b?n=2", headers: [("Cookie", cookie)])
            let post = try await client.send(publicURL.description + "form", method: .POST, headers: [("Cookie", cookie), ("Content-Type", "text/plain")], body: Array("hello".utf8))
            for reply in [first, second, post] {
                #expect(reply.status == 200)
                let echo = try reply.echo
                #expect(echo.tlsVersion == "TLSv1.3" || echo.tlsVersion == "TLSv1.2")
                #expect(echo.identity["x-webapp-launch-subject"] == "A123456780")
                #expect(echo.identity["x-webapp-launch-app"] == "healthmagazin")
            }
            #expect(try post.echo.bodyLength == 5)
            // One connection served all three: kept alive over TLS, not one handshake each.
            let ports = try [first, second, post].map { reply -> Int in
                let object = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
                return try #require(object?["peer_port"] as? Int)
            }
            #expect(Set(ports).count == 1)
        }
    }

    @Test(
        "an upstream the gate cannot authenticate (certificate, name, authority, TLS below 1.2) gets no request: 502, the failure logged without personal data",
        arguments: [
            // Self-signed and in no store: the machine's store does not vouch for it.
            UntrustedCase.selfSignedWithSystemStore,
            // Issued by the trusted authority, but for another name than the upstream's address.
            UntrustedCase.otherName,
            // Another authority's certificate: trusting one authority is not trusting all.
            UntrustedCase.otherAuthority,
            // The trusted authority's certificate on a server that speaks only TLS 1.1.
            UntrustedCase.outdatedTLS,
        ]
    )
    func untrustedUpstream(_ untrusted: UntrustedCase) async throws {
        let served = try await TestCertificate(subjectAltName: untrusted == .otherName ? "DNS:other.example" : "IP:127.0.0.1")
        let other = try await TestCertificate()
        let upstream = try await EchoUpstream(tls: served, onlyTLS11: untrusted == .outdatedTLS)
        let trust: UpstreamTrust = switch untrusted {
        case .selfSignedWithSystemStore: .system
        case .otherName, .outdatedTLS: .certificateAuthorities(pemFile: served.certificate)
        case .otherAuthority: .certificateAuthorities(pemFile: other.certificate)
        }
        try await withHTTPSGate(to: upstream, trust: trust) { publicURL, client, logs, metrics in
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            for _ in 0..<2 {  // the second as well: a failed handshake leaves no connection to reuse
                let reply = try await client.send(publicURL.description + "secret", headers: [("Cookie", cookie)])
                #expect(reply.status == 502)
                #expect(reply.headers["x-upstream"].isEmpty)
                #expect(!reply.body.contains("A123456780"))
            }
            let failures = logs.lines("gate.upstream_failed", where: "status", is: "502")
            #expect(failures.count == 2)
            let codes = failures.map { $0.metadata["error"] ?? "" }
            #expect(codes == ["tlsHandshakeFailed", "tlsHandshakeFailed"])
            // Counted where an operator looks: the gate's metrics.
            let samples = PrometheusSamples.parse(metrics.exposition())
            #expect(samples[#"webapp_launch_gate_upstream_failures_total{status="502",error="tlsHandshakeFailed"}"#] == 2, "\(samples)")
            #expect(!logs.fullText.contains("A123456780"))
            #expect(!logs.fullText.contains(cookie.split(separator: "=").last.map(String.init) ?? cookie))
        }
    }

    @Test("a reload (SIGHUP) reads --upstream-ca-file again: a kept connection authenticated under the replaced authority is not used again on either request path, and a file that would not start (no certificate, writable by others) keeps the authority in use")
    func reloadedAuthority() async throws {
        let logs = LogCapture()
        try await withReloadScene(logs: logs) { scene in
            let (gate, publicURL, client, authority, servedPEM, otherPEM) = (
                scene.gate, scene.publicURL, scene.client, scene.authority, scene.servedPEM, scene.otherPEM
            )
            let names = gate.reloadables.map(\.name)
            #expect(names == ["keyring", "upstream-trust"])
            let reloadable = try #require(gate.reloadables.last)
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            let user = Visitor(client: client, publicURL: publicURL, cookie: cookie)
            var statuses: [Int] = []

            statuses.append(try await user.get())  // leaves one connection, authenticated under the served authority, idle
            // Another authority: the kept connection is closed, not leased (a POST takes the pool's
            // awaited lease), and a new one fails its handshake.
            try authority.trust(otherPEM)
            let toOther = await reloadable.reload()
            statuses.append(try await user.post())
            // The served authority again: a GET opens a connection and leaves it idle; after the
            // next reload the event loop's idle lease passes it over too.
            try authority.trust(servedPEM)
            let toServed = await reloadable.reload()
            statuses.append(try await user.get())
            try authority.trust(otherPEM)
            let toOtherAgain = await reloadable.reload()
            statuses.append(try await user.get())
            // A file that would not start keeps the authority in use (the other one: still 502):
            // one without a certificate, or the served authority in a file others may change.
            try authority.trust("no certificate here\n")
            let broken = await reloadable.reload()
            statuses.append(try await user.get())
            try authority.trust(servedPEM)
            #expect(chmod(authority.path, 0o666) == 0)
            let loose = await reloadable.reload()
            statuses.append(try await user.get())
            try authority.trust(servedPEM)
            let back = await reloadable.reload()
            statuses.append(try await user.get())
            statuses.append(try await user.post())

            #expect(statuses == [200, 502, 200, 502, 502, 502, 200, 200])
            if case .kept(reason: let reason) = loose {
                #expect(reason.contains("writable by group or others"), "\(reason)")
            } else {
                Issue.record("a file writable by others was taken: \(loose)")
            }
            #expect([toOther, toServed, toOtherAgain, back].map(\.isReloaded) == [true, true, true, true])
            if case .kept(reason: let reason) = broken {
                #expect(reason.contains(authority.path))
            } else {
                Issue.record("a file without a certificate was taken: \(broken)")
            }
            let failures = logs.lines("gate.upstream_failed", where: "status", is: "502")
            #expect(failures.map { $0.metadata["error"] ?? "" } == Array(repeating: "tlsHandshakeFailed", count: 4))
            #expect(!logs.fullText.contains("A123456780"))
            // Counted on the gate's own metrics, beside its launches.
            let samples = PrometheusSamples.parse(gate.metrics.exposition())
            #expect(samples[#"webapp_launch_config_reloads_total{config="upstream-trust",result="reloaded"}"#] == 4, "\(samples)")
            #expect(samples[#"webapp_launch_config_reloads_total{config="upstream-trust",result="kept"}"#] == 2)
        }
    }

    @Test("a reload (SIGHUP) that reads the same authorities in --upstream-ca-file keeps the kept upstream connection on both request paths (the same certificates in a file rewritten with a comment too); other authorities then retire it")
    func unchangedAuthorityKeepsConnections() async throws {
        try await withReloadScene(logs: LogCapture()) { scene in
            let (publicURL, client, authority) = (scene.publicURL, scene.client, scene.authority)
            let reloadable = try #require(scene.gate.reloadables.last)
            #expect(reloadable.name == "upstream-trust")
            let cookie = try await client.exchange(try GateFixtures.launchURL(for: publicURL))
            /// The upstream's view of one request: its status and the gate's port on that connection.
            func send(_ method: HTTPMethod) async throws -> (status: Int, port: Int?) {
                let reply = try await client.send(
                    publicURL.description + "echo", method: method,
                    headers: [("Cookie", cookie), ("Content-Type", "text/plain")], body: method == .POST ? Array("hello".utf8) : nil
                )
                let object = try? JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
                return (reply.status, object?["peer_port"] as? Int)
            }
            let first = try await send(.GET)  // opens the connection and leaves it idle
            let unchanged = await reloadable.reload()
            let afterUnchanged = try await send(.GET)  // the event loop's idle lease
            try authority.trust("# the same authority, rewritten\n" + scene.servedPEM)
            let rewritten = await reloadable.reload()
            let afterRewritten = try await send(.POST)  // the pool's awaited lease
            try authority.trust(scene.otherPEM)
            let replaced = await reloadable.reload()
            let afterReplaced = try await send(.GET)

            #expect([unchanged, rewritten, replaced].map(\.isReloaded) == [true, true, true])
            let statuses: [Int] = [first.status, afterUnchanged.status, afterRewritten.status]
            #expect(statuses == [200, 200, 200])
            let port = try #require(first.port)
            // No new handshake for an unchanged file, on either lease.
            #expect(afterUnchanged.port == port)
            #expect(afterRewritten.port == port)
            // Other authorities: the kept connection is retired and a new one fails its handshake.
            #expect(afterReplaced.status == 502)
        }
    }

    /// A reload test's gate: in front of an https upstream whose certificate `servedPEM`
    /// vouches for, trusting the file `authority` (which holds `servedPEM` at start), with
    /// another authority's certificate (`otherPEM`) to trust instead.
    private struct ReloadScene: Sendable {
        let gate: WebAppGate
        let publicURL: RegisteredURL
        let client: TestClient
        let authority: AuthorityFile
        let servedPEM: String
        let otherPEM: String
    }

    /// Runs `body` with a started ``ReloadScene``.
    private func withReloadScene(logs: LogCapture, _ body: @Sendable (ReloadScene) async throws -> Void) async throws {
        let served = try await TestCertificate()
        let other = try await TestCertificate()
        let upstream = try await EchoUpstream(tls: served)
        let directory = try TemporaryDirectory()
        let authority = AuthorityFile(path: directory.path("upstream-ca.pem"))
        let servedPEM = try String(contentsOfFile: served.certificate, encoding: .utf8)
        let otherPEM = try String(contentsOfFile: other.certificate, encoding: .utf8)
        try authority.trust(servedPEM)
        let started = Mutex<WebAppGate?>(nil)
        try await withGate(
            mode: .reverseProxy(upstream: try GateUpstream(upstream.origin)),
            adjust: { $0.upstreamTrust = .certificateAuthorities(pemFile: authority.path) }, logs: logs,
            started: { gate in started.withLock { $0 = gate } }
        ) { publicURL, client in
            let startedGate: WebAppGate? = started.withLock { $0 }
            let gate = try #require(startedGate)
            try await body(ReloadScene(gate: gate, publicURL: publicURL, client: client, authority: authority, servedPEM: servedPEM, otherPEM: otherPEM))
        }
        withExtendedLifetime(directory) {}
    }

    /// The `--upstream-ca-file` a test rewrites between reloads.
    private struct AuthorityFile {
        let path: String
        func trust(_ pem: String) throws {
            try pem.write(toFile: path, atomically: true, encoding: .utf8)
            // Whatever the umask: a file others may change is refused, and is tested as such apart.
            guard chmod(path, 0o644) == 0 else { throw SubprocessError(message: "chmod \(path) failed") }
        }
    }

    /// A browser with a session at the gate.
    private struct Visitor {
        let client: TestClient
        let publicURL: RegisteredURL
        let cookie: String

        func get() async throws -> Int {
            try await client.send(publicURL.description + "page", headers: [("Cookie", cookie)]).status
        }

        func post() async throws -> Int {
            try await client.send(
                publicURL.description + "form", method: .POST,
                headers: [("Cookie", cookie), ("Content-Type", "text/plain")], body: Array("hello".utf8)
            ).status
        }
    }

    enum UntrustedCase: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case selfSignedWithSystemStore, otherName, otherAuthority, outdatedTLS
        var testDescription: String { rawValue }
    }

    @Test("--upstream-ca-file is refused for an http upstream and the auth_request shape, and a file that is missing, not regular, without a certificate or writable by group or others stops the gate, naming the file and why")
    func configurationIsChecked() async throws {
        let certificate = try await TestCertificate()
        let publicURL = try RegisteredURL("http://127.0.0.1:8080/")
        func configuration(_ mode: GateConfiguration.Mode, _ trust: UpstreamTrust) -> GateConfiguration {
            var configuration = GateConfiguration(appID: GateFixtures.appID, publicURL: publicURL, keyring: GateFixtures.appKeyring, mode: mode)
            configuration.upstreamTrust = trust
            return configuration
        }
        let authority = UpstreamTrust.certificateAuthorities(pemFile: certificate.certificate)
        let https = GateConfiguration.Mode.reverseProxy(upstream: try GateUpstream("https://127.0.0.1:9443"))
        for mode in [GateConfiguration.Mode.reverseProxy(upstream: try GateUpstream("http://127.0.0.1:9000")), .authRequest] {
            #expect(throws: ConfigurationError.self) { try configuration(mode, authority).validate() }
            #expect((try? configuration(mode, .system).validate()) != nil)
        }
        #expect((try? configuration(https, authority).validate()) != nil)

        let empty = try TemporaryDirectory()
        let notPEM = empty.path("not.pem")
        try "no certificate here\n".write(toFile: notPEM, atomically: true, encoding: .utf8)
        // The certificate itself, but changeable by others: they would choose whom the gate trusts.
        let looseCopies = try [0o620, 0o602, 0o666].map { mode -> String in
            let path = empty.path("loose-\(String(mode, radix: 8)).pem")
            try FileManager.default.copyItem(atPath: certificate.certificate, toPath: path)
            #expect(chmod(path, mode_t(mode)) == 0)
            return path
        }
        let refusals = [
            (empty.path("missing.pem"), "no such file"), (empty.path(""), "not a regular file"),
            (notPEM, "not a readable PEM file"), (certificate.key, "not a readable PEM file"),
        ] + looseCopies.map { ($0, "writable by group or others") }
        for (path, reason) in refusals {
            do {
                _ = try WebAppGate(configuration: configuration(https, .certificateAuthorities(pemFile: path)), replayStore: InMemoryReplayStore())
                Issue.record("the gate started with --upstream-ca-file \(path)")
            } catch {
                #expect("\(error)".contains(path))
                #expect("\(error)".contains("--upstream-ca-file"))
                #expect("\(error)".contains(reason), "\(error)")
            }
        }
        // Readable by everyone is fine: a certificate is public.
        let readable = empty.path("readable.pem")
        try FileManager.default.copyItem(atPath: certificate.certificate, toPath: readable)
        #expect(chmod(readable, 0o644) == 0)
        _ = try WebAppGate(configuration: configuration(https, .certificateAuthorities(pemFile: readable)), replayStore: InMemoryReplayStore())
        _ = try WebAppGate(configuration: configuration(https, authority), replayStore: InMemoryReplayStore())
    }
}
