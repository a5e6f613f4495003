import ArgumentParser
import Foundation
import NIOCore

/// `webapp-launch`: mint, verify and inspect launch URLs, manage keys, run the web app.
@main
struct WebAppLaunchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webapp-launch",
        abstract: "Authenticated launches of registered web apps: keys, test URLs, verification and the web-app server.",
        discussion: """
        Exit codes: 0 success, 1 rejected launch, 2 usage or configuration error.

        Quick start:
          webapp-launch serve                      # then open the printed URL
          webapp-launch mint --app healthmagazin --access-token env:ACCESS_TOKEN --firstname Erika --lastname Mustermann --kvnumber T012345678

        Secret options (mint --access-token, serve and gate --replay, launcher --client-secret)
        take env:NAME, file:PATH (mode 0600) or - (standard input): a secret on the command line
        is visible to every local user (ps).
        """,
        version: BuildInfo.line,
        subcommands: [Keygen.self, Mint.self, Verify.self, Inspect.self, Serve.self, Gate.self, Launcher.self, Bridge.self]
    )

    /// Runs the command, mapping every usage or configuration error to exit code 2 with one
    /// line on stderr (argument-parser's default would be 64 and a usage block).
    static func main() async {
        // One pool of threads for I/O and for request handling: NIO's event loops (one per
        // core, or `--event-loops`) run Swift Concurrency's jobs too, so a request's task
        // resumes on the thread its connection's I/O just ran on instead of hopping to the
        // cooperative pool and back for every read and write (issue 36: half the CPU of a
        // launch went to those hops and to the core migrations they cause). First thing in
        // the process, before any task is enqueued, but after parsing, which can size that
        // pool (`--event-loops`) and starts no task. ``EventLoopExecutor`` does it in the
        // statically linked release too, where SwiftNIO's own installer cannot.
        do {
            var command = try parseAsRoot()
            EventLoopsOption.sizeSharedGroup(loops: (command as? any ListeningCommand)?.eventLoops.eventLoops)
            _ = EventLoopExecutor.isInstalled
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            // Messages may echo input (a path, a URL's host): escaped, so they stay one line
            // and carry no terminal control sequence.
            printError("error: \(failure.message)")
            Foundation.exit(failure.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success || error is ExitCode {
                exit(withError: error)
            }
            let message = self.message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid usage"
            printError("error: \(message) (see --help)")
            Foundation.exit(2)
        }
    }
}

/// A failure with its exit code and the one line printed on stderr.
struct CommandFailure: Error {
    let exitCode: Int32
    let message: String

    /// Exit 1: a launch was rejected.
    static func rejected(_ message: String) -> CommandFailure { CommandFailure(exitCode: 1, message: message) }
    /// Exit 2: usage or configuration.
    static func configuration(_ message: String) -> CommandFailure { CommandFailure(exitCode: 2, message: message) }
}
