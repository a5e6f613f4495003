import ArgumentParser
import NIOCore
import NIOPosix

/// `--event-loops N` for every command that listens (`serve`, `gate`, `launcher`): how many
/// threads run the process's I/O and its request handling.
///
/// Why an operator sets it: one event loop per core is right when the process has its cores to
/// itself. When it shares them (a sidecar beside the app, a small host that also runs the
/// load balancer or nginx), a loop per core competes with the neighbours for every core, and
/// each time a neighbour wakes it preempts a loop in the middle of a request: on a 2-core host
/// running the load generator beside `serve`, two loops were preempted about once per launch
/// and spent about a third more CPU per launch than one loop (BENCHMARKS.md). Without the
/// option: one loop per core.
struct EventLoopsOption: ParsableArguments {
    @Option(name: .long, help: "Event-loop threads for I/O and request handling, 1 to 64 (default: one per core). Fewer than the cores when the process shares its host with busy neighbours.")
    var eventLoops: Int?

    func validate() throws {
        if let eventLoops, !(1...64).contains(eventLoops) {
            throw ValidationError("--event-loops must be 1 to 64")
        }
    }

    /// Sizes NIO's shared event-loop group, which the servers listen on and which runs Swift
    /// Concurrency's jobs. Only before that group is first used: the process's first step.
    /// - Parameter loops: The `--event-loops` given, or `nil` for NIO's one per core.
    static func sizeSharedGroup(loops: Int?) {
        if let loops {
            NIOSingletons.groupLoopCountSuggestion = loops
        }
    }
}

/// A command that listens, and so sizes the process's event loops (``EventLoopsOption``).
/// `SendableMetatype`: the cast to it in `main` must not make the command main-actor bound.
protocol ListeningCommand: SendableMetatype {
    /// The `--event-loops` option.
    var eventLoops: EventLoopsOption { get }
}
