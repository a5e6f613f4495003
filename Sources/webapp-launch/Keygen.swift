import ArgumentParser
import WebAppLaunch

extension WebAppLaunchCommand {
    /// Adds, retires or revokes keys in a keyring file.
    struct Keygen: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a fresh key to a keyring (created with mode 0600), or retire/revoke one.",
            discussion: """
            Examples:
              webapp-launch keygen --kid 2026-11 --keyring /etc/webapp-launch/keyring.json
              webapp-launch keygen --retire 2026-10 --keyring /etc/webapp-launch/keyring.json
              webapp-launch keygen --revoke 2026-09 --keyring /etc/webapp-launch/keyring.json
              webapp-launch keygen --export-app healthmagazin --keyring /etc/webapp-launch/keyring.json --out healthmagazin.keyring.json
            --export-app writes the app keyring of one app (its derived keys only, every kid with its
            status; mode 0600, never over an existing file): what a partner web app verifies with.
            Re-export after --retire or --revoke to carry the status over.
            """
        )

        @Option(name: .long, help: "Id of the new key ([A-Za-z0-9._-], up to 64).")
        var kid: String?

        @Option(name: .long, help: "Keyring file to create or update.")
        var keyring: String

        @Flag(name: .long, help: "Mark a newly created keyring as development keys (loopback only).")
        var development = false

        @Option(name: .long, help: "Mark this key verify-only (rotation grace).")
        var retire: String?

        @Option(name: .long, help: "Revoke this key.")
        var revoke: String?

        @Option(name: .long, help: "Export the app keyring of this app id from the launcher keyring (needs --out).")
        var exportApp: String?

        @Option(name: .long, help: "Where --export-app writes the app keyring (must not exist).")
        var out: String?

        func validate() throws {
            let actions = [kid != nil, retire != nil, revoke != nil, exportApp != nil].filter { $0 }.count
            guard actions == 1 else { throw ValidationError("give exactly one of --kid, --retire, --revoke, --export-app") }
            guard (exportApp != nil) == (out != nil) else { throw ValidationError("--export-app and --out go together") }
        }

        func run() throws {
            if let exportApp, let out {
                try export(app: exportApp, to: out)
                return
            }
            do {
                let existing: Keyring? = try? Keyring(contentsOfFile: keyring)
                if existing == nil, FileManagerProbe.exists(keyring) {
                    _ = try Keyring(contentsOfFile: keyring)  // rethrows the precise load error
                }
                let updated: Keyring
                if let kid {
                    let key = try KeyringKey(kid: kid, status: .active, secret: try KeySecret.generate())
                    if let existing {
                        guard existing.key(kid: kid) == nil else {
                            throw CommandFailure.configuration("the kid \(kid) is already in \(keyring)")
                        }
                        updated = try existing.adding(key)
                    } else {
                        updated = try Keyring(keys: [key], isDevelopment: development)
                    }
                    TerminalText.printLine("added key \(kid) (active, 32 random bytes) to \(keyring)")
                } else {
                    guard let existing else { throw CommandFailure.configuration("no keyring at \(keyring)") }
                    let (target, status) = retire.map { ($0, KeyStatus.verifyOnly) } ?? (revoke!, .revoked)
                    updated = try existing.setting(status, forKeyID: target)
                    TerminalText.printLine("key \(target) is now \(status.rawValue)")
                }
                try updated.write(toFile: keyring)
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure.configuration("\(error)")
            }
        }

        /// Writes one app's app keyring, derived from the launcher keyring.
        private func export(app: String, to out: String) throws {
            do {
                let exported = try Keyring(contentsOfFile: keyring).exportingApp(app)
                try exported.write(toFile: out, replacingExisting: false)
                let kids = exported.keys.map { "\($0.kid) \($0.status.rawValue)" }.joined(separator: ", ")
                print("wrote the app keyring of \(app) (\(kids)) to \(out)")
            } catch {
                throw CommandFailure.configuration("\(error)")
            }
        }
    }
}

import Foundation

enum FileManagerProbe {
    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
}
