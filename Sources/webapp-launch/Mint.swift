import ArgumentParser
import Foundation
import WebAppLaunch
import WebAppLaunchMiddleware

extension WebAppLaunchCommand {
    /// Mints a test launch URL for a registered app.
    struct Mint: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a launch URL (or a self-submitting POST form) for a registered app and a user.",
            discussion: """
            --access-token takes env:NAME, file:PATH or - (standard input) so the token stays off
            the command line, where every local user can read it (ps); a token given inline works,
            with a warning.
            Examples:
              webapp-launch mint --app healthmagazin --access-token env:ACCESS_TOKEN --firstname Jürgen --lastname "O'Brien" --kvnumber A123456780
              printf %s "$TOKEN" | webapp-launch mint --app healthmagazin --access-token - --firstname Erika --lastname Mustermann --kvnumber T012345678
            --count mints a batch, one launch per line, for load tests and benchmarks (the one
            minting path of the harness); --distinct-users gives each launch its own user derived
            from the given one, and --output json prints each launch with its user, so a test can
            search logs for every value of the run:
              webapp-launch mint --app healthmagazin --access-token env:T --firstname A --lastname B --kvnumber A123456780 --count 1000 --distinct-users --output json
            """
        )

        @Option(name: .long, help: "The registered app id.")
        var app: String

        @OptionGroup var registry: RegistryOption
        @OptionGroup var keyring: KeyringOption

        @Option(name: .long, help: "The user's access token: env:NAME, file:PATH, - (standard input), or inline (warns).")
        var accessToken: String

        @Option(name: .long, help: "The user's first name.")
        var firstname: String

        @Option(name: .long, help: "The user's last name.")
        var lastname: String

        @Option(name: .long, help: "The user's KVNR (letter, eight digits, check digit).")
        var kvnumber: String

        @Option(name: .long, help: "Seconds until the launch expires (1-300).")
        var ttl: UInt64 = LaunchSigner.defaultLifetime

        @Option(name: .long, help: "sealed (claims encrypted, default) or signed (claims readable).")
        var mode: String = "sealed"

        @Flag(name: .long, help: "Print a self-submitting HTML form that POSTs the launch instead of a URL.")
        var form = false

        @Option(name: .long, help: "How many launches to print, one per line (1-\(Self.maximumCount)).")
        var count = 1

        @Flag(name: .long, help: "Give each launch of a batch its own user, derived from the given one.")
        var distinctUsers = false

        @Option(name: .long, help: "url (one launch URL per line, default) or json (one object per line: url, token and the user's claims).")
        var output: LaunchOutput = .url

        /// The largest batch: ten million launches are about 20 GB of output at the largest
        /// token, more than any benchmark needs.
        static let maximumCount = 10_000_000

        func validate() throws {
            guard LaunchMode(name: mode) != nil else { throw ValidationError("--mode must be sealed or signed") }
            guard (1...Self.maximumCount).contains(count) else { throw ValidationError("--count must be 1 to \(Self.maximumCount)") }
            guard !form || (count == 1 && output == .url) else { throw ValidationError("--form prints one launch: no --count or --output json") }
            // --ttl's range is the minter's rule, checked by the signer in SPEC.md §11's order
            // (`unknown_app` before `invalid_lifetime` and `lifetime_too_long`), not here.
        }

        func run() throws {
            let signer: LaunchSigner
            do {
                signer = try LaunchSigner(keyring: try keyring.load(), registry: try registry.load())
            } catch let error as KeyringError {
                throw CommandFailure.configuration("keyring \(keyring.path): \(error)")
            }
            let accessToken = try SecretArgument(accessToken, option: "--access-token")
            let users = BatchUsers(
                base: LaunchUser(accessToken: accessToken.value, firstName: firstname, lastName: lastname, kvnumber: kvnumber),
                distinct: distinctUsers
            )
            let mode = LaunchMode(name: mode)!
            var lines = LaunchLines(output: output)
            let now = Date()
            for index in 0..<count {
                let user = users.user(index)
                let url: String
                do {
                    url = try signer.launchURL(for: app, user: user, mode: mode, lifetime: ttl, now: now)
                } catch {
                    throw CommandFailure.configuration("\(error.code): \(error.reason)")
                }
                if form {
                    print(try Self.postForm(for: url))
                } else {
                    lines.append(url: url, user: user)
                }
            }
            lines.flush()
            accessToken.warnIfInline()
        }

        /// A page that POSTs `launch` to the registered URL as soon as it loads.
        /// - Parameter url: A launch URL the signer just minted (it has a query with `launch`).
        static func postForm(for url: String) throws -> String {
            let parameters: LaunchParameters
            do {
                parameters = try LaunchParameters(query: url.split(separator: "?", maxSplits: 1).dropFirst().first)
            } catch {
                throw CommandFailure.configuration("the minted URL does not parse: \(error.code)")
            }
            guard let split = LaunchParameters.splittingLaunch(fromURL: url[...]) else {
                throw CommandFailure.configuration("the minted URL has no query")
            }
            let action = String(split.base) + (split.others.isEmpty ? "" : "?" + split.others.joined(separator: "&"))
            // Escaped per Unicode scalar, like every piece of HTML the package writes.
            return """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>Launching…</title></head>
            <body onload="document.forms[0].submit()">
            <form method="post" action="\(HTMLEscaping.escape(action))">
            <input type="hidden" name="launch" value="\(HTMLEscaping.escape(parameters.token))">
            <noscript><button type="submit">Open the web app</button></noscript>
            </form></body></html>
            """
        }
    }
}
