import ArgumentParser

/// What `serve`, `gate` and `launcher` share for reloads and shutdown: SIGHUP reloads the
/// keyring (and registry) with every startup check; SIGTERM turns `/readyz` off, waits
/// `--shutdown-delay`, then drains.
struct ReloadOptions: ParsableArguments {
    @Option(name: .long, help: "Seconds /readyz answers 503 after SIGTERM before the server stops accepting and drains (the load balancer's probe interval times its threshold).")
    var shutdownDelay: Int = 0

    func validate() throws {
        guard (0...300).contains(shutdownDelay) else { throw ValidationError("--shutdown-delay must be 0 to 300") }
    }

    /// The pause between readiness off and the server's own shutdown.
    var drainDelay: Duration { .seconds(shutdownDelay) }
}

extension CommandFailure: CustomStringConvertible {
    /// The message alone: a refused reload logs it as its one line.
    var description: String { message }
}
