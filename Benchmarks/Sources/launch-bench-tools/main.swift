// Helpers for scripts/bench.
//
//   launch-bench-tools access-token
//       The typical user's 1024-byte access token, for `webapp-launch mint --count`, which
//       mints the load's launches (the one minting path of the harness).
//   launch-bench-tools replay-memory [--count 1000000]
//       Fills an InMemoryReplayStore with COUNT distinct live ReplayIDs and prints the bytes
//       per live nonce (growth of the resident set size) as JSON.
//   launch-bench-tools describe
//       Token and MAC-input sizes of the typical launch, as JSON, for the table.
//   launch-bench-tools loop verify|mint|floor signed|sealed ITERATIONS
//       One operation in a loop, for profiling under perf.
//   launch-bench-tools paired [--pairs 2000] [--slice 200]
//       The verify-to-floor ratio per mode, from interleaved slices (see `paired()`), as JSON.

import Foundation
import LaunchFixtures
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppRegistry
#if canImport(Glibc)
import Glibc
#endif

func option(_ name: String, _ fallback: String) -> String {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: name), index + 1 < arguments.count { return arguments[index + 1] }
    return fallback
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("launch-bench-tools: \(message)\n".utf8))
    exit(1)
}

/// The typical user's access token, so the load's launches (minted by `webapp-launch mint`)
/// carry the same claims as the micro-benchmarks' ones.
func accessToken() {
    print(LaunchFixtures.user.accessToken)
}

func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func replayMemory() throws {
    guard let count = Int(option("--count", "1000000")) else { fail("bad --count") }
    // Twice the count: the store splits its capacity evenly over 16 shards chosen by the id, so
    // a store of capacity N fills one shard (and refuses claims) before it holds N random ids.
    let store = InMemoryReplayStore(capacity: 2 * count)
    // Random-looking, distinct ids (SplitMix64), all live for the whole run.
    var state: UInt64 = 0x1234_5678_9ABC_DEF0
    func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    let now: UInt64 = 1_790_000_000
    let rssBefore = residentBytes()
    let started = ContinuousClock.now
    for _ in 0..<count {
        guard try store.claim(ReplayID(high: next(), low: next()), until: now + 360, now: now) else { fail("duplicate id") }
    }
    let elapsed = ContinuousClock.now - started
    let rssAfter = residentBytes()
    guard store.count() == count else { fail("the store holds \(store.count()), not \(count)") }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print("""
    {"count": \(count), "rss_bytes_per_nonce": \(Double(rssAfter - rssBefore) / Double(count)), \
    "claim_ns": \(seconds * 1e9 / Double(count))}
    """)
}

/// Sizes of the typical launch, for the table: token text length and MAC input length per mode.
func describe() throws {
    let signer = try LaunchSigner(keyring: try LaunchFixtures.keyring(), registry: try LaunchFixtures.registry())
    var fields: [String] = []
    for mode in [LaunchMode.signed, .sealed] {
        let token = try signer.launchToken(for: LaunchFixtures.appID, user: LaunchFixtures.user, mode: mode)
        let (input, _) = try LaunchFixtures.macInput(ofToken: token)
        fields.append("\"token_length_\(mode)\": \(token.utf8.count), \"mac_input_\(mode)\": \(input.count)")
    }
    print("{" + fields.joined(separator: ", ") + "}")
}

/// A tight loop of one operation, for profiling (valgrind --tool=callgrind):
///   launch-bench-tools loop verify|mint|floor signed|sealed ITERATIONS
func loop() throws {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    guard arguments.count == 3, let mode = LaunchMode(name: arguments[1]), let iterations = Int(arguments[2]) else {
        fail("usage: launch-bench-tools loop verify|mint|floor signed|sealed ITERATIONS")
    }
    let keyring = try LaunchFixtures.keyring(), registry = try LaunchFixtures.registry()
    guard let app = registry.app(id: LaunchFixtures.appID) else { fail("no app") }
    let signer = try LaunchSigner(keyring: keyring, registry: registry)
    let verifier = try LaunchVerifier(keyring: keyring, app: app)
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    let token = try signer.launchToken(for: app.id, user: LaunchFixtures.user, mode: mode, lifetime: 60, now: now)
    var checksum = 0
    switch arguments[0] {
    case "verify":
        for _ in 0..<iterations { checksum &+= Int(truncatingIfNeeded: try verifier.verify(token: token, now: now).replayID.low) }
    case "mint":
        for _ in 0..<iterations {
            checksum &+= try signer.launchToken(for: app.id, user: LaunchFixtures.user, mode: mode, lifetime: 60, now: now).utf8.count
        }
    case "floor":
        let floor = try RawKeyedHMAC(key: try LaunchFixtures.macKey(secret: try LaunchFixtures.signingSecret().secret, appID: app.id))
        let (input, _) = try LaunchFixtures.macInput(ofToken: token)
        input.withUnsafeBufferPointer { input in
            for _ in 0..<iterations { checksum &+= floor.mac(input) ? 1 : 0 }
        }
    default: fail("unknown operation \(arguments[0])")
    }
    print(checksum)
}

/// The verify-to-floor ratio measured so that a change of the host's pace cannot land on one
/// side only: `verify` and the raw HMAC floor run in alternating slices of SLICE operations
/// (a fraction of a millisecond each), in the order floor-verify, then verify-floor, and so
/// on; each pair gives one ratio, and the ratio's median over PAIRS pairs is the figure. The
/// micro-benchmarks measure the floor and `verify` seconds apart, and on this machine kind a
/// host phase moves either by up to 40 % within minutes, so their quotient drifts between
/// runs by more than the target's margin.
///   launch-bench-tools paired [--pairs 2000] [--slice 200]
func paired() throws {
    guard let pairs = Int(option("--pairs", "2000")), pairs > 0, let slice = Int(option("--slice", "200")), slice > 0 else {
        fail("usage: launch-bench-tools paired [--pairs N] [--slice N]")
    }
    let keyring = try LaunchFixtures.keyring(), registry = try LaunchFixtures.registry()
    guard let app = registry.app(id: LaunchFixtures.appID) else { fail("no app") }
    let signer = try LaunchSigner(keyring: keyring, registry: registry)
    let verifier = try LaunchVerifier(keyring: keyring, app: app)
    let floor = try RawKeyedHMAC(key: try LaunchFixtures.macKey(secret: try LaunchFixtures.signingSecret().secret, appID: app.id))
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    var checksum = 0
    var fields: [String] = []
    for mode in [LaunchMode.signed, .sealed] {
        let token = try signer.launchToken(for: app.id, user: LaunchFixtures.user, mode: mode, lifetime: 60, now: now)
        let (input, _) = try LaunchFixtures.macInput(ofToken: token)
        func floorSlice() -> Double {
            let start = ContinuousClock.now
            input.withUnsafeBufferPointer { input in
                for _ in 0..<slice { checksum &+= floor.mac(input) ? 1 : 0 }
            }
            return nanoseconds(ContinuousClock.now - start) / Double(slice)
        }
        func verifySlice() throws -> Double {
            let start = ContinuousClock.now
            for _ in 0..<slice { checksum &+= Int(truncatingIfNeeded: try verifier.verify(token: token, now: now).replayID.low) }
            return nanoseconds(ContinuousClock.now - start) / Double(slice)
        }
        for _ in 0..<max(20, pairs / 20) { _ = floorSlice(); _ = try verifySlice() }  // warm-up
        var ratios: [Double] = [], floors: [Double] = [], verifies: [Double] = []
        for pair in 0..<pairs {
            let floorNs: Double, verifyNs: Double
            if pair.isMultiple(of: 2) {
                floorNs = floorSlice(); verifyNs = try verifySlice()
            } else {
                verifyNs = try verifySlice(); floorNs = floorSlice()
            }
            ratios.append(verifyNs / floorNs); floors.append(floorNs); verifies.append(verifyNs)
        }
        ratios.sort(); floors.sort(); verifies.sort()
        func at(_ sorted: [Double], _ percentile: Int) -> Double { sorted[min(sorted.count - 1, sorted.count * percentile / 100)] }
        fields.append(
            "\"\(mode)\": {\"pairs\": \(pairs), \"slice\": \(slice), \"ratio_median\": \(at(ratios, 50)), "
                + "\"ratio_p10\": \(at(ratios, 10)), \"ratio_p90\": \(at(ratios, 90)), "
                + "\"floor_ns_median\": \(at(floors, 50)), \"verify_ns_median\": \(at(verifies, 50))}"
        )
    }
    FileHandle.standardError.write(Data("launch-bench-tools: checksum \(checksum)\n".utf8))
    print("{" + fields.joined(separator: ", ") + "}")
}

func nanoseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
}

do {
    switch CommandLine.arguments.dropFirst().first {
    case "paired": try paired()
    case "loop": try loop()
    case "describe": try describe()
    case "access-token": accessToken()
    case "replay-memory": try replayMemory()
    default: fail("usage: launch-bench-tools access-token | replay-memory [--count N] | describe | loop verify|mint|floor signed|sealed ITERATIONS | paired [--pairs N] [--slice N]")
    }
} catch {
    fail("\(error)")
}
