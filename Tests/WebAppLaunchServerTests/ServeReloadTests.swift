import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchReload
import WebAppLaunchServer
import WebAppLaunchTestSupport
import WebAppRegistry

/// `serve`'s reload (issue 35): the keyring and registry are read again with every check of
/// startup; anything that would not start keeps the old configuration, logs one line and
/// counts `webapp_launch_config_reloads_total{result="kept"}`.
@Suite("serve reloads its keyring and registry only when they would start, and keeps the old otherwise")
struct ServeReloadTests {
    /// A way to break the files on disk before a reload.
    enum Breakage: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case keyringNotJSON, keyringReadableByOthers, developmentKeys, keyringOfAnotherApp, registryWithoutTheApp, registryNotJSON
        var testDescription: String { rawValue }

        func apply(to fixture: ReloadFixture, launcher: Keyring) throws {
            switch self {
            case .keyringNotJSON:
                try Data("{\"keys\": [".utf8).write(to: URL(fileURLWithPath: fixture.keyringPath))
            case .keyringReadableByOthers:
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: fixture.keyringPath)
            case .developmentKeys:
                let development = try Keyring(keys: launcher.keys, isDevelopment: true)
                try development.exportingApp(Fixtures.magazin.id).write(toFile: fixture.keyringPath)
            case .keyringOfAnotherApp:
                try launcher.exportingApp(Fixtures.bonus.id).write(toFile: fixture.keyringPath)
            case .registryWithoutTheApp:
                let json = #"{"apps": [{"id": "bonus", "title": "Bonus", "url": "http://127.0.0.1:8080/apps/bonus"}]}"#
                try Data(json.utf8).write(to: URL(fileURLWithPath: fixture.registryPath))
            case .registryNotJSON:
                try Data("apps:".utf8).write(to: URL(fileURLWithPath: fixture.registryPath))
            }
        }
    }

    @Test("a file that would not start keeps the old configuration, launches still verify, one log line, one count", arguments: Breakage.allCases)
    func keepsOld(breakage: Breakage) async throws {
        let launcher = try ReloadFixture.launcherKeyring(kid: "2026-11")
        let fixture = try ReloadFixture(launcher: launcher)
        defer { fixture.directory.remove() }
        let server = try fixture.server()
        try breakage.apply(to: fixture, launcher: launcher)
        let outcome = await server.verification.reload()
        guard case .kept(let reason) = outcome else {
            Issue.record("a broken file was swapped in: \(outcome)")
            return
        }
        #expect(!reason.isEmpty && !reason.contains("\n"))
        #expect(server.verification.generation == 0)
        let refusals = fixture.logs.lines("config.reload_refused", where: "config", is: "keyring+registry")
        #expect(refusals.count == 1)
        #expect(server.metrics.exposition().contains(#"webapp_launch_config_reloads_total{config="keyring+registry",result="kept"} 1"#))
        let signer = try LaunchSigner(keyring: launcher, registry: Fixtures.registry)
        try await server.makeApplication().test(.router) { client in
            let launch = try await client.launch(try signer.launchToken(for: Fixtures.magazin.id, user: Fixtures.user), at: Fixtures.magazin, via: .get)
            #expect(launch.status == .seeOther)
        }
    }

    @Test("a valid new keyring and registry are swapped in: the new key verifies, the title is the new one, the revoked key no longer does (through the router, and over a socket, where launches are answered on the event loop)",
          arguments: [false, true])
    func swapsValid(overSocket: Bool) async throws {
        let old = try ReloadFixture.launcherKeyring(kid: "2026-11")
        let fixture = try ReloadFixture(launcher: old)
        defer { fixture.directory.remove() }
        let server = try fixture.server()
        let rotated = try old.adding(KeyringKey(kid: "2026-12", status: .active, secret: try KeySecret.generate()))
            .setting(.revoked, forKeyID: "2026-11")
        let newSigner = try LaunchSigner(keyring: rotated, registry: Fixtures.registry)
        let oldSigner = try LaunchSigner(keyring: old, registry: Fixtures.registry)
        try await server.makeApplication().test(overSocket ? .live : .router) { client in
            // Reloaded while the server runs: a listener must not keep the keys it started with.
            try rotated.exportingApp(Fixtures.magazin.id).write(toFile: fixture.keyringPath)
            try Data(ReloadFixture.registryJSON.replacingOccurrences(of: "Gesundheitsmagazin", with: "Gesundheitsmagazin Plus").utf8)
                .write(to: URL(fileURLWithPath: fixture.registryPath))
            #expect(await server.verification.reload() == .reloaded(generation: 1))
            #expect(server.verification.current.registry.app(id: Fixtures.magazin.id)?.title == "Gesundheitsmagazin Plus")
            let accepted = try await client.launch(try newSigner.launchToken(for: Fixtures.magazin.id, user: Fixtures.user), at: Fixtures.magazin, via: .get)
            #expect(accepted.status == .seeOther)
            let page = try await client.get(Fixtures.cleanTarget(of: Fixtures.magazin), cookie: try #require(accepted.sessionCookie?.value))
            #expect(page.status == .ok)
            #expect(String(buffer: page.body).contains("Gesundheitsmagazin Plus"))
            let revoked = try await client.launch(try oldSigner.launchToken(for: Fixtures.magazin.id, user: Fixtures.user), at: Fixtures.magazin, via: .get)
            #expect(revoked.status == .unauthorized)
        }
        #expect(fixture.logs.lines("config.reloaded", where: "config", is: "keyring+registry").count == 1)
        let accepted = try #require(fixture.logs.all.first { $0.message == "launch.accepted" })
        #expect((accepted.metadata["hb.request.id"] == nil) == overSocket, "over a socket, the event loop answered the launch")
    }

    @Test("a session opened (and remembered) under a key is refused once a reload revokes that key")
    func revokedKeyEndsOpenedSessions() async throws {
        let old = try ReloadFixture.launcherKeyring(kid: "2026-11")
        let fixture = try ReloadFixture(launcher: old)
        defer { fixture.directory.remove() }
        let server = try fixture.server()
        let signer = try LaunchSigner(keyring: old, registry: Fixtures.registry)
        try await server.makeApplication().test(.router) { client in
            let launch = try await client.launch(try signer.launchToken(for: Fixtures.magazin.id, user: Fixtures.user), at: Fixtures.magazin, via: .get)
            let cookie = try #require(launch.sessionCookie?.value)
            // Twice: the second answer may come from the codec's cache of opened sessions.
            for _ in 0..<2 {
                #expect(try await client.get(Fixtures.cleanTarget(of: Fixtures.magazin), cookie: cookie).status == .ok)
            }
            let rotated = try old.adding(KeyringKey(kid: "2026-12", status: .active, secret: try KeySecret.generate()))
                .setting(.revoked, forKeyID: "2026-11")
            try rotated.exportingApp(Fixtures.magazin.id).write(toFile: fixture.keyringPath)
            #expect(await server.verification.reload() == .reloaded(generation: 1))
            let after = try await client.get(Fixtures.cleanTarget(of: Fixtures.magazin), cookie: cookie)
            #expect(after.status != .ok, "a session sealed under a revoked key must not open, cached or not")
            #expect(!String(buffer: after.body).contains(Fixtures.user.lastName))
        }
    }

    @Test("/readyz answers 503 once shutdown begins, while the store is fine")
    func readinessOffOnShutdown() async throws {
        let fixture = try ReloadFixture(launcher: try ReloadFixture.launcherKeyring(kid: "2026-11"))
        defer { fixture.directory.remove() }
        let server = try fixture.server()
        try await server.makeApplication().test(.router) { client in
            let before = try await client.get("/readyz").status
            server.readiness.beginDraining()
            let after = try await client.get("/readyz").status
            let health = try await client.get("/healthz").status
            #expect(before == .ok)
            #expect(after == .serviceUnavailable)
            #expect(health == .ok)
        }
    }
}
