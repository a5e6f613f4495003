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
            print("UNVERIFIED header (anyone can forge these fields; use verify):")
            print("  version   \(header.version)")
            print("  mode      \(header.mode)")
            print("  kid       \(header.kid)")
            print("  issued    \(Verify.timestamp(header.issuedAt))")
            print("  expires   \(Verify.timestamp(header.expiresAt))")
            print("  app       \(header.appID)")
            print("  audience  \(header.audience)")
        }
    }
}
