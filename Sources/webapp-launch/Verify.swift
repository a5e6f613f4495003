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
            Exit 0 and a summary when valid, exit 1 and the error code when rejected, exit 2 for
            usage or configuration (SPEC.md §15). Standard input (-) loses one trailing newline.
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

        @Option(name: .long, help: "Expected app id; default: an app keyring's app, else the app registered at the audience (never the token's).")
        var app: String?

        @Flag(name: .long, help: "Print the result as JSON.")
        var json = false

        @Flag(name: .long, help: "Show the access token itself instead of its length and hash.")
        var reveal = false

        func run() throws {
            // SPEC.md §15.2: configuration first (exit 2), then the URL's shape (exit 1), then
            // the defaults worked out from it; the app is never taken from the unverified token.
            let keyring = try keyring.load()
            let registry = try registry.load()
            let configuredAudience = try audience.map(Self.audience(from:))
            let text: String
            do {
                text = try readURLArgument(url)
            } catch let error as LaunchError {
                throw rejection(error)
            }
            let expectedAudience = try configuredAudience ?? defaultAudience(for: text)
            // An app keyring verifies its own app only: that app is the default.
            guard let appID = app ?? keyring.appID ?? registry.app(at: expectedAudience)?.id else {
                throw CommandFailure.configuration("no app is registered at \(expectedAudience); use --app")
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

        private static func audience(from text: String) throws -> RegisteredURL {
            do {
                return try RegisteredURL(text)
            } catch {
                throw CommandFailure.configuration("--audience: \(error)")
            }
        }

        /// The URL without its `launch` pieces, as the audience to expect. The whole-URL shape
        /// is checked first, as the verifier checks it (a URL without `?` or with `#` is a
        /// `malformed` launch, exit 1), and the pieces are split as the verifier splits them,
        /// so a bare or repeated `launch` is a rejected launch too, not a bad audience.
        private func defaultAudience(for text: String) throws -> RegisteredURL {
            let split: (base: Substring, others: [Substring])?
            do {
                _ = try LaunchParameters.splittingWholeURL(text[...])
                split = LaunchParameters.splittingLaunch(fromURL: text[...])
            } catch {
                throw rejection(error)
            }
            guard let split else {
                throw rejection(LaunchError(.malformed, "the URL has no query"))
            }
            do {
                return try RegisteredURL(String(split.base) + (split.others.isEmpty ? "" : "?" + split.others.joined(separator: "&")))
            } catch {
                throw CommandFailure.configuration("the URL without launch is not a registered URL (\(error.reason)); use --audience")
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
