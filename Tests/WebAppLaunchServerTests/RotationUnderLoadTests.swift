import Foundation
import HTTPTypes
import HummingbirdTesting
import Synchronization
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchReload
import WebAppLaunchServer
import WebAppLaunchTestSupport
import WebAppRegistry

/// Issue 35's proof: the rotation runbook of Docs/Onboarding.md, step by step, with reloads
/// instead of restarts, while launches keep arriving over a real loopback socket. The
/// launcher side is a ``ReloadableConfiguration`` of a signer over the launcher keyring file
/// (what `launcher` reloads on SIGHUP); the verifier is the server reloading its app keyring
/// file (what `serve` reloads). Counted: valid launches that failed (must be 0) and launches
/// accepted under the revoked key (must be 0).
@Suite("Key rotation under load, with reloads instead of restarts")
struct RotationUnderLoadTests {
    /// What the load loop saw.
    struct Counts: Sendable {
        var launches = 0
        var failedValid = 0
        var acceptedRevoked = 0
        var byKid: [String: Int] = [:]
    }

    /// What the load task and the runbook share.
    final class LoadState: Sendable {
        /// The kid revoked at the verifier (set once its reload returned).
        let revokedAtVerifier = Mutex<String?>(nil)
        let stop = Atomic<Bool>(false)
        let counts = Mutex(Counts())
    }

    @Test("the runbook runs while launches flow: zero failed valid launches, zero accepted under the revoked key")
    func rotationUnderLoad() async throws {
        let old = "2026-11", new = "2026-12"
        let launcherKeyring = try ReloadFixture.launcherKeyring(kid: old)
        let fixture = try ReloadFixture(launcher: launcherKeyring)
        defer { fixture.directory.remove() }
        let launcherPath = fixture.directory.path("launcher.keyring.json")
        let nextPath = fixture.directory.path("launcher.next.keyring.json")
        try launcherKeyring.write(toFile: launcherPath)
        let registry = Fixtures.registry
        let launcher = ReloadableConfiguration(name: "keyring+registry", initial: try LaunchSigner(keyring: launcherKeyring, registry: registry)) {
            try LaunchSigner(keyring: try Keyring(contentsOfFile: launcherPath), registry: registry)
        }
        let server = try fixture.server()
        let verifier = server.verification
        let load = LoadState()
        let launchesSoFar: @Sendable () -> Int = { load.counts.withLock { $0.launches } }

        try await server.makeApplication().test(.live) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                // The load: one launch after another, each minted by the launcher as it is now.
                group.addTask {
                    for _ in 0..<20_000 where !load.stop.load(ordering: .acquiring) {
                        let signer = launcher.current
                        let kid = signer.keyring.signingKey?.kid ?? "-"
                        let token = try signer.launchToken(for: Fixtures.magazin.id, user: Fixtures.user)
                        let revoked = load.revokedAtVerifier.withLock { $0 }
                        let response = try await client.launch(token, at: Fixtures.magazin, via: .get)
                        load.counts.withLock { counts in
                            counts.launches += 1
                            counts.byKid[kid, default: 0] += 1
                            if response.status != .seeOther { counts.failedValid += 1 }
                            if response.status == .seeOther && kid == revoked { counts.acceptedRevoked += 1 }
                        }
                    }
                }
                /// Lets launches flow between two steps (bounded wait).
                @Sendable func letLaunchesFlow(_ count: Int = 25) async throws {
                    let target = launchesSoFar() + count
                    for _ in 0..<3000 where launchesSoFar() < target {
                        try await Task.sleep(for: .milliseconds(5))
                    }
                    #expect(launchesSoFar() >= target, "the load stalled")
                }
                try await letLaunchesFlow()
                // 1. A new key, in a copy of the launcher keyring: the running launcher does not sign with it yet.
                try launcherKeyring.adding(KeyringKey(kid: new, status: .active, secret: try KeySecret.generate())).write(toFile: nextPath)
                try await letLaunchesFlow()
                // 2. Export the app keyring and reload the verifier: it now knows both keys.
                try Keyring(contentsOfFile: nextPath).exportingApp(Fixtures.magazin.id).write(toFile: fixture.keyringPath)
                #expect(await verifier.reload().isReloaded)
                try await letLaunchesFlow()
                // A broken file in the middle (a copy readable by others): refused, nothing changes.
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: fixture.keyringPath)
                #expect(!(await verifier.reload()).isReloaded)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: fixture.keyringPath)
                try await letLaunchesFlow()
                // 3. Switch the launcher's signing key: the new file in place, then reload.
                #expect(rename(nextPath, launcherPath) == 0)
                #expect(await launcher.reload().isReloaded)
                #expect(launcher.current.keyring.signingKey?.kid == new)
                try await letLaunchesFlow()
                // 4. Retire the old key (verify-only), reload the launcher, export, reload the verifier.
                try Keyring(contentsOfFile: launcherPath).setting(.verifyOnly, forKeyID: old).write(toFile: launcherPath)
                #expect(await launcher.reload().isReloaded)
                try Keyring(contentsOfFile: launcherPath).exportingApp(Fixtures.magazin.id).write(toFile: fixture.keyringPath)
                #expect(await verifier.reload().isReloaded)
                try await letLaunchesFlow()
                // A launch minted under the old key before the revocation, held back (a stale link).
                let stale = try LaunchSigner(keyring: launcherKeyring, registry: registry).launchToken(for: Fixtures.magazin.id, user: Fixtures.user)
                // 5. Revoke the old key, reload the launcher, export, reload the verifier.
                try Keyring(contentsOfFile: launcherPath).setting(.revoked, forKeyID: old).write(toFile: launcherPath)
                #expect(await launcher.reload().isReloaded)
                try Keyring(contentsOfFile: launcherPath).exportingApp(Fixtures.magazin.id).write(toFile: fixture.keyringPath)
                #expect(await verifier.reload().isReloaded)
                load.revokedAtVerifier.withLock { $0 = old }
                try await letLaunchesFlow()
                load.stop.store(true, ordering: .releasing)
                try await group.waitForAll()
                // The held-back launch under the revoked key.
                let staleResponse = try await client.launch(stale, at: Fixtures.magazin, via: .get)
                load.counts.withLock { counts in
                    if staleResponse.status == .seeOther { counts.acceptedRevoked += 1 }
                }
                #expect(staleResponse.status == .unauthorized)
            }
        }
        let totals = load.counts.withLock { $0 }
        let line = "rotation under load: \(totals.launches) launches (\(old): \(totals.byKid[old] ?? 0), \(new): \(totals.byKid[new] ?? 0)), "
            + "\(totals.failedValid) failed valid, \(totals.acceptedRevoked) accepted under the revoked key, "
            + "verifier reloads \(verifier.generation) (1 refused), launcher reloads \(launcher.generation)"
        print(line)
        #expect(totals.failedValid == 0, "\(line)")
        #expect(totals.acceptedRevoked == 0, "\(line)")
        #expect((totals.byKid[old] ?? 0) > 0 && (totals.byKid[new] ?? 0) > 0, "both keys carried launches")
        #expect(verifier.generation == 3)
        #expect(launcher.generation == 3)
        #expect(fixture.logs.lines("launch.rejected", where: "code", is: "revoked_key").count + fixture.logs.lines("launch.rejected", where: "code", is: "unknown_key").count >= 1)
    }
}
