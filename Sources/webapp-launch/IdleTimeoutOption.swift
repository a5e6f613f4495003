import ArgumentParser

/// `--idle-timeout SECONDS` for every command that listens (`serve`, `gate`, `launcher`): how
/// long a client connection may stay silent before it is closed.
///
/// Why an operator sets it: behind a load balancer or proxy that keeps connections alive, this
/// must be longer than the balancer's own idle timeout, or the server closes a connection just
/// as the balancer sends a request on it and the balancer answers 502. Without the option each
/// command keeps its configuration's default (30 s; the gate 75 s, above common balancers' 60 s).
struct IdleTimeoutOption: ParsableArguments {
    @Option(name: .long, help: "Seconds a client connection may stay silent before it is closed, 1 to 3600 (default: 30; the gate: 75). Behind a load balancer, set it above the balancer's idle timeout.")
    var idleTimeout: Int?

    func validate() throws {
        if let idleTimeout, !(1...3600).contains(idleTimeout) {
            throw ValidationError("--idle-timeout must be 1 to 3600 seconds")
        }
    }

    /// The timeout given, or `configured` (the configuration's default) without the option.
    func duration(otherwise configured: Duration) -> Duration {
        idleTimeout.map { .seconds($0) } ?? configured
    }
}
