import ArgumentParser
import WebAppLaunch

extension WebAppLaunchCommand {
    /// Shows a token's clear header without verifying it.
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a launch's clear header (unverified; never decrypts claims).",
            discussion: """
            Example:
              webapp-launch inspect "http://127.0.0.1:8080/apps/healthmagazin?launch=…"
            """
        )

        @Argument(help: "The launch URL or token, or - to read it from standard input.")
        var url: String

        func run() throws {
            let header: LaunchHeader
            do {
                header = try LaunchInspector.unverifiedHeader(of: try readURLArgument(url))
            } catch let error as LaunchError {
                throw CommandFailure.rejected("\(error.code): \(error.reason)")
            }
            // Every field but the version is attacker-chosen text: printed escaped.
            TerminalText.printLine("UNVERIFIED header (anyone can forge these fields; use verify):")
            TerminalText.printLine("  version   \(header.version)")
            TerminalText.printLine("  mode      \(header.mode)")
            TerminalText.printLine("  kid       \(header.kid)")
            TerminalText.printLine("  issued    \(Verify.timestamp(header.issuedAt))")
            TerminalText.printLine("  expires   \(Verify.timestamp(header.expiresAt))")
            TerminalText.printLine("  app       \(header.appID)")
            TerminalText.printLine("  audience  \(header.audience)")
        }
    }
}
