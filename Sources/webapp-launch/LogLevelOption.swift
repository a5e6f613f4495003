import ArgumentParser
import Logging

/// `--log-level LEVEL`, and the logging every long-running command sets up the same way.
struct LogLevelOption: ParsableArguments {
    @Option(name: .long, help: "Least severe log level written to standard error.")
    var logLevel: Logger.Level = .info

    /// Sends every log line at or above the level to standard error (once per process:
    /// swift-log allows one bootstrap). Standard output stays for the banner a script reads.
    func bootstrap() {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = DeferredMetadataLogHandler(StreamLogHandler.standardError(label: label))
            handler.logLevel = level
            return handler
        }
    }

    /// Logs which build is starting (``BuildInfo/line``) and what runs its tasks (`executor`:
    /// `event-loops`, or `default` when ``EventLoopExecutor`` could not take over): the first
    /// line of a service's log once its configuration is accepted, so a refused configuration
    /// stays one line on stderr.
    func announceBuild() {
        Logger(label: "webapp-launch").notice(
            "\(BuildInfo.line)",
            metadata: ["executor": "\(EventLoopExecutor.isInstalled ? "event-loops" : "default")"]
        )
    }
}

/// Lets `--log-level` parse straight into swift-log's levels (their raw values).
extension Logger.Level: @retroactive ExpressibleByArgument {}
