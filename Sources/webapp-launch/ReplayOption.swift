import ArgumentParser
import WebAppLaunchMiddleware
import WebAppRegistry

/// `--replay`: the replay store, the same option on every command that claims launches
/// (`serve`, `gate`).
///
/// A PostgreSQL URL can carry a password, so the value is a ``SecretArgument``: `env:NAME`,
/// `file:PATH` or `-` keep it off the command line, and an inline URL with a password draws a
/// warning.
struct ReplayOption: ParsableArguments {
    @Option(
        name: .long,
        help: "Replay store: memory, sqlite:PATH or postgres://…; as env:NAME, file:PATH or - (stdin) to keep a password off the command line. Default: a SQLite file in the state directory."
    )
    var replay: String?

    @Flag(name: .long, help: "Accept a PostgreSQL replay store running with synchronous_commit=off (development clusters only: a crash could forget used launches).")
    var replayAllowAsyncCommit = false

    /// The store named (and where its text came from, for the inline-secret warning), or the
    /// default SQLite file when none is named. Resolved first by every command, so an
    /// unreadable `env:`/`file:` fails before anything else.
    /// - Throws: ``CommandFailure/configuration(_:)``.
    func resolve() throws -> (store: ReplayStoreConfiguration, source: SecretArgument?) {
        guard let replay else {
            do {
                return (try ReplayStoreConfiguration.defaultFile(), nil)
            } catch {
                throw CommandFailure.configuration(error.reason)
            }
        }
        let source = try SecretArgument(replay, option: "--replay", isSecretInline: SecretArgument.urlCarriesPassword)
        guard let store = ReplayStoreConfiguration(source.value) else {
            throw CommandFailure.configuration("--replay must be memory, sqlite:PATH or postgres://…")
        }
        return (store, source)
    }
}
