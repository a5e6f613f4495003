// The micro-benchmarks of issue 7, all in one process and one run, so their ratios compare
// like with like: the raw keyed-HMAC floor over a token's exact MAC input, our mint and verify
// (signed and sealed), and vapor/jwt-kit HS256 sign and verify of a JWT carrying the same
// claims. Run through scripts/bench (which turns the results into BENCHMARKS.md's table).

import Benchmark
import Foundation
import JWTKit
import LaunchFixtures
import WebAppLaunch
import WebAppRegistry

// MARK: - Fixtures (built once, before any benchmark runs)

/// Everything the closures read. Built eagerly at registration; read-only afterwards.
final class Fixtures: @unchecked Sendable {
    let signer: LaunchSigner
    let verifier: LaunchVerifier
    let now: Date
    let tokens: [LaunchMode: String]
    /// Each mode's token MAC input (label || blob without MAC), and the raw keyed floor.
    let macInputs: [LaunchMode: [UInt8]]
    let floor: RawKeyedHMAC
    // jwt-kit
    let jwtKeys = JWTKeyCollection()
    var jwtToken = ""
    let jwtPayload: LaunchJWT

    init() throws {
        let keyring = try LaunchFixtures.keyring()
        let registry = try LaunchFixtures.registry()
        guard let app = registry.app(id: LaunchFixtures.appID) else { throw FixtureError("no app") }
        signer = try LaunchSigner(keyring: keyring, registry: registry)
        verifier = try LaunchVerifier(keyring: keyring, app: app)
        now = Date(timeIntervalSince1970: 1_790_000_000)
        let (_, secret) = try LaunchFixtures.signingSecret()
        let floor = try RawKeyedHMAC(key: try LaunchFixtures.macKey(secret: secret, appID: LaunchFixtures.appID))
        self.floor = floor
        var tokens: [LaunchMode: String] = [:]
        var inputs: [LaunchMode: [UInt8]] = [:]
        for mode in [LaunchMode.signed, .sealed] {
            let token = try signer.launchToken(for: LaunchFixtures.appID, user: LaunchFixtures.user, mode: mode, lifetime: 60, now: now)
            _ = try verifier.verify(token: token, now: now)
            let (input, mac) = try LaunchFixtures.macInput(ofToken: token)
            // The floor must be over the same bytes with the same key: check it reproduces the MAC.
            guard input.withUnsafeBufferPointer({ floor.mac($0) }), floor.output == mac else {
                throw FixtureError("the raw HMAC floor does not reproduce the \(mode) token's MAC")
            }
            tokens[mode] = token
            inputs[mode] = input
        }
        self.tokens = tokens
        macInputs = inputs
        let user = LaunchFixtures.user
        jwtPayload = LaunchJWT(
            accessToken: user.accessToken, firstname: user.firstName, lastname: user.lastName, kvnumber: user.kvnumber,
            iat: IssuedAtClaim(value: Date()), exp: ExpirationClaim(value: Date().addingTimeInterval(3600)),
            jti: IDClaim(value: "6f1c2a8e9b3d4f5a8c7e1d2b3a4f5e6d")
        )
    }

    /// jwt-kit needs an async setup: the same derived MAC key as ours, as an HS256 key.
    func prepareJWT() async throws {
        let (_, secret) = try LaunchFixtures.signingSecret()
        await jwtKeys.add(hmac: HMACKey(from: try LaunchFixtures.macKey(secret: secret, appID: LaunchFixtures.appID)), digestAlgorithm: .sha256)
        jwtToken = try await jwtKeys.sign(jwtPayload)
        _ = try await jwtKeys.verify(jwtToken, as: LaunchJWT.self)
    }
}

/// A JWT carrying the launch's four claims plus iat, exp and jti.
struct LaunchJWT: JWTPayload, Equatable {
    var accessToken: String
    var firstname: String
    var lastname: String
    var kvnumber: String
    var iat: IssuedAtClaim
    var exp: ExpirationClaim
    var jti: IDClaim

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", firstname, lastname, kvnumber, iat, exp, jti
    }

    func verify(using _: some JWTAlgorithm) throws {
        try exp.verifyNotExpired()
    }
}

let fixtures: Fixtures = {
    do { return try Fixtures() } catch { fatalError("benchmark fixtures: \(error)") }
}()

// MARK: - Benchmarks

/// Operations per timing sample (scripts/bench divides the sample times by this).
let operationsPerSample = 64

let benchmarks: @Sendable () -> Void = {
    // Timings: each sample is `operationsPerSample` operations (short samples, so a busy
    // machine's preemptions hit few of them and the median stays clean); scripts/bench divides
    // by `operationsPerSample`. Wall clock in ns.
    let timing = Benchmark.Configuration(
        metrics: [.wallClock],
        timeUnits: .nanoseconds,
        warmupIterations: 50,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 100_000
    )
    // Allocations: one operation per sample, counted by the malloc interposer.
    let allocations = Benchmark.Configuration(
        metrics: [.mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 100,
        scalingFactor: .one,
        maxDuration: .seconds(1),
        maxIterations: 2_000
    )

    for (mode, name) in [(LaunchMode.signed, "signed"), (.sealed, "sealed")] {
        let input = fixtures.macInputs[mode]!
        let token = fixtures.tokens[mode]!

        Benchmark("floor.hmac.\(name)", configuration: timing) { benchmark in
            input.withUnsafeBufferPointer { input in
                for _ in 0..<operationsPerSample {
                    blackHole(fixtures.floor.mac(input))
                }
            }
        }

        Benchmark("verify.\(name)", configuration: timing) { benchmark in
            for _ in 0..<operationsPerSample {
                blackHole(try! fixtures.verifier.verify(token: token, now: fixtures.now))
            }
        }

        Benchmark("mint.\(name)", configuration: timing) { benchmark in
            for _ in 0..<operationsPerSample {
                blackHole(try! fixtures.signer.launchToken(
                    for: LaunchFixtures.appID, user: LaunchFixtures.user, mode: mode, lifetime: 60, now: fixtures.now
                ))
            }
        }

        Benchmark("allocs.verify.\(name)", configuration: allocations) { _ in
            blackHole(try! fixtures.verifier.verify(token: token, now: fixtures.now))
        }

        Benchmark("allocs.mint.\(name)", configuration: allocations) { _ in
            blackHole(try! fixtures.signer.launchToken(
                for: LaunchFixtures.appID, user: LaunchFixtures.user, mode: mode, lifetime: 60, now: fixtures.now
            ))
        }
    }

    let prepareJWT: Benchmark.BenchmarkSetupHook = { try await fixtures.prepareJWT() }

    Benchmark("jwtkit.hs256.sign", configuration: timing, closure: { benchmark async in
        for _ in 0..<operationsPerSample {
            blackHole(try! await fixtures.jwtKeys.sign(fixtures.jwtPayload))
        }
    }, setup: prepareJWT)

    Benchmark("jwtkit.hs256.verify", configuration: timing, closure: { benchmark async in
        for _ in 0..<operationsPerSample {
            blackHole(try! await fixtures.jwtKeys.verify(fixtures.jwtToken, as: LaunchJWT.self))
        }
    }, setup: prepareJWT)

    Benchmark("allocs.jwtkit.hs256.verify", configuration: allocations, closure: { _ async in
        blackHole(try! await fixtures.jwtKeys.verify(fixtures.jwtToken, as: LaunchJWT.self))
    }, setup: prepareJWT)

    Benchmark("allocs.jwtkit.hs256.sign", configuration: allocations, closure: { _ async in
        blackHole(try! await fixtures.jwtKeys.sign(fixtures.jwtPayload))
    }, setup: prepareJWT)
}
