import ArgumentParser
import Foundation
import WebAppLaunch
import WebAppRegistry

extension WebAppLaunchCommand {
    /// Verifies a launch URL (everything but replay).
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a launch URL: key, MAC, time, audience, app and claims (not replay).",
            discussion: """
            Exit 0 and a summary when valid, exit 1 and the error code when rejected.
            Examples:
              webapp-launch verify "http://127.0.0.1:8080/apps/healthmagazin?launch=…"
              webapp-launch mint … | webapp-launch verify - --json
            """
        )

        @Argument(help: "The launch URL, or - to read it from standard input.")
        var url: String

        @OptionGroup var keyring: KeyringOption
        @OptionGroup var registry: RegistryOption

        @Option(name: .long, help: "Expected audience (registered URL); default: the URL without launch.")
        var audience: String?

        @Option(name: .long, help: "Expected app id; default: the app registered at the audience.")
        var app: String?

        @Flag(name: .long, help: "Print the result as JSON.")
        var json = false

        @Flag(name: .long, help: "Show the access token itself instead of its length and hash.")
        var reveal = false

        func run() throws {
            let text = try readURLArgument(url)
            let keyring = try keyring.load()
            let expectedAudience = try expectedAudience(for: text)
            let registry = try? registry.load()
            // An app keyring verifies its own app only: that app is the default.
            let header = Result { () throws(LaunchError) in try LaunchInspector.unverifiedHeader(of: text) }
            guard let appID = app ?? keyring.appID ?? registry?.app(at: expectedAudience)?.id ?? (try? header.get().appID) else {
                // No app to derive keys for, because the launch does not even parse: report
                // why, as verification would (exit 1), not as a configuration error.
                if case .failure(let error) = header { throw rejection(error) }
                throw CommandFailure.configuration("cannot tell which app the launch is for; use --app")
            }
            let verifier: LaunchVerifier
            do {
                verifier = try LaunchVerifier(keyring: keyring, appID: appID, audiences: [expectedAudience])
            } catch {
                throw CommandFailure.configuration("keyring \(self.keyring.path): \(error)")
            }
            let launch: VerifiedLaunch
            do {
                launch = try verifier.verify(url: text, now: Date())
            } catch {
                throw rejection(error)
            }
            try printSummary(launch)
        }

        /// Exit 1 with the error code, printing the JSON verdict first when asked.
        private func rejection(_ error: LaunchError) -> CommandFailure {
            if json {
                print(#"{"valid":false,"error":"\#(error.code)"}"#)
            }
            return CommandFailure.rejected("\(error.code): \(error.reason)")
        }

        private func expectedAudience(for text: String) throws -> RegisteredURL {
            do {
                if let audience { return try RegisteredURL(audience) }
                // Split as the verifier splits (bytes, bare `launch` pieces included): a URL
                // with a bare or repeated `launch` is then a rejected launch, not a bad audience.
                guard let split = LaunchParameters.splittingLaunch(fromURL: text[...]) else {
                    throw rejection(LaunchError(.malformed, "the URL has no launch parameter"))
                }
                return try RegisteredURL(String(split.base) + (split.others.isEmpty ? "" : "?" + split.others.joined(separator: "&")))
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure.configuration("audience: \(error)")
            }
        }

        private func printSummary(_ launch: VerifiedLaunch) throws {
            let header = launch.header
            let claims = launch.claims
            let fingerprint = try SHA256.hash(Array(claims.accessToken.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
            let accessToken = reveal ? claims.accessToken : "\(claims.accessToken.utf8.count) bytes, sha256 \(fingerprint)…"
            let fields: [(String, String)] = [
                ("app", header.appID),
                ("audience", header.audience),
                ("kid", header.kid),
                ("mode", header.mode.description),
                ("issued", Self.timestamp(header.issuedAt)),
                ("expires", Self.timestamp(header.expiresAt)),
                ("firstname", claims.firstName),
                ("lastname", claims.lastName),
                ("kvnumber", claims.kvnr.value),
                ("access_token", accessToken),
            ]
            if json {
                var object: [String: Any] = ["valid": true]
                for (key, value) in fields { object[key] = value }
                try TerminalText.printJSON(object)
            } else {
                TerminalText.printLine("valid launch")
                for (key, value) in fields { TerminalText.printLine("  \(key.padding(toLength: 13, withPad: " ", startingAt: 0)) \(value)") }
            }
        }

        static func timestamp(_ seconds: UInt64) -> String {
            guard seconds < 253_402_300_800 else { return "\(seconds) (beyond year 9999)" }
            return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
    }
}
