import ArgumentParser
import WebAppLaunch

/// `--session-lifetime`, `--skew` and `--max-ttl`: how a serving command (serve, gate)
/// verifies launches and how long the sessions it opens last, checked in one place.
struct VerificationOptions: ParsableArguments {
    @Option(name: .long, help: "Session lifetime in seconds.")
    var sessionLifetime: UInt64 = 1800

    @Option(name: .long, help: "Tolerated clock skew in seconds.")
    var skew: UInt64 = 60

    @Option(name: .long, help: "Maximum accepted launch lifetime in seconds.")
    var maxTTL: UInt64 = 300

    func validate() throws {
        guard skew <= 600 else { throw ValidationError("--skew must be at most 600") }
        guard (1...3600).contains(maxTTL) else { throw ValidationError("--max-ttl must be 1 to 3600") }
    }

    /// The verifier's policy for these options.
    var policy: VerificationPolicy { VerificationPolicy(clockSkew: skew, maximumLifetime: maxTTL) }
}
