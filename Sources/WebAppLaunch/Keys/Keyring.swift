import WebAppRegistry
import Foundation

/// The set of keys a launcher signs with and a verifier accepts, loaded from a JSON file.
///
/// There are two kinds (SPEC.md §13):
/// - a **launcher keyring** holds root secrets and can mint for every registered app; each
///   app's keys are derived from a root secret with HKDF and the app id;
/// - an **app keyring** holds only one app's app keys (same kids and statuses), as exported
///   by `webapp-launch keygen --export-app`; it verifies launches for that app and no other,
///   and never mints.
///
/// ```json
/// {"kind": "launcher", "development": false,
///  "keys": [{"kid": "2026-11", "status": "active", "secret": "<base64url, 32+ bytes>"}]}
/// {"kind": "app", "app": "healthmagazin", "development": false,
///  "keys": [{"kid": "2026-11", "status": "active", "app_key": "<base64url, 32 bytes>"}]}
/// ```
///
/// A file without `kind` is a launcher keyring. Keys are listed oldest first; the signer uses
/// the last `active` one. A verifier looks a token's kid up here and rejects unknown or
/// revoked kids: there is no default key. A production keyring (`development: false`) whose
/// file is readable or writable by group or others is refused, as ssh refuses a private key
/// with loose permissions.
public struct Keyring: Sendable {
    /// The keys, oldest first. In an app keyring each key's secret is the app key.
    public let keys: [KeyringKey]
    /// Whether these are development keys (shipped in the repository, hence public). The
    /// server refuses to serve non-loopback addresses with them.
    ///
    /// `true` when the keyring says so, and also whenever any key's secret is one of the
    /// project's published development secrets, or (in an app keyring) the app key one of them
    /// derives for its app, whatever the keyring's flag says: a copy of the shipped keyring, or
    /// an app keyring exported from it, without its flag is still public.
    /// ``DevelopmentKeyPolicy`` is the one rule that refuses such keys off loopback.
    public let isDevelopment: Bool
    /// The app an app keyring is for; `nil` for a launcher keyring (root secrets).
    public let appID: String?
    /// An app keyring's own keys, ready for its verifier (derived once, at load).
    private let ownAppKeys: AppKeys?

    /// Creates a launcher keyring from root secrets.
    /// - Parameters:
    ///   - keys: The keys, oldest first; kids must be unique.
    ///   - isDevelopment: Whether the keys are development keys. A keyring holding a
    ///     published development secret is development even when this is `false`.
    /// - Throws: ``KeyringError`` for duplicates, an empty list or a derivation failure.
    public init(keys: [KeyringKey], isDevelopment: Bool) throws(KeyringError) {
        try self.init(checking: keys, isDevelopment: isDevelopment, appID: nil)
    }

    /// Creates an app keyring: one app's app keys, under the launcher keyring's kids.
    /// - Parameters:
    ///   - keys: The app keys (each exactly 32 bytes), oldest first; kids must be unique.
    ///   - appID: The app they are for.
    ///   - isDevelopment: Whether they derive from development keys.
    /// - Throws: ``KeyringError`` for duplicates, an empty list, a bad app id or key length.
    public init(appKeys keys: [KeyringKey], forApp appID: String, isDevelopment: Bool) throws(KeyringError) {
        try self.init(checking: keys, isDevelopment: isDevelopment, appID: appID)
    }

    private init(checking keys: [KeyringKey], isDevelopment: Bool, appID: String?) throws(KeyringError) {
        guard !keys.isEmpty else { throw KeyringError(.empty, "a keyring needs at least one key") }
        var kids = Set<String>()
        var holdsPublishedSecret = false
        for key in keys {
            guard kids.insert(key.kid).inserted else {
                throw KeyringError(.duplicateKeyID, "the kid `\(key.kid)` appears twice")
            }
            if PublishedDevelopmentSecrets.contains(key.secret) { holdsPublishedSecret = true }
        }
        if let appID {
            guard IdentifierSyntax.isValid(appID) else {
                throw KeyringError(.invalidAppID, "an app id must be 1 to 64 characters of [A-Za-z0-9._-]")
            }
            for key in keys where key.secret.bytes.count != Self.appKeyByteCount {
                throw KeyringError(.invalidSecret, "the app key of `\(key.kid)` must be \(Self.appKeyByteCount) bytes")
            }
            do {
                // An app key derived from a published root secret is as public as the secret.
                for key in keys where try PublishedDevelopmentSecrets.contains(appKey: key.secret, appID: appID) {
                    holdsPublishedSecret = true
                }
            } catch {
                throw KeyringError(.cryptoFailure, "OpenSSL failed to derive keys (error \(error.openSSLCode))")
            }
            do {
                ownAppKeys = try AppKeys(keys: keys, appID: appID, secretsAreAppKeys: true)
            } catch {
                throw KeyringError(.cryptoFailure, "OpenSSL failed to derive keys (error \(error.openSSLCode))")
            }
        } else {
            ownAppKeys = nil
        }
        self.keys = keys
        self.isDevelopment = isDevelopment || holdsPublishedSecret
        self.appID = appID
    }

    /// The length of an app key, in bytes.
    public static let appKeyByteCount = 32

    /// Loads a keyring file, refusing loose permissions on a production keyring.
    ///
    /// A symlink is followed (Kubernetes mounts secrets as links): the permissions judged
    /// are those of the regular file the path resolves to, read from the same open
    /// descriptor as its bytes, never the link's own (always 0777).
    /// - Parameter path: The file's path.
    /// - Throws: ``KeyringError`` naming the problem: missing file, unreadable or not a
    ///   regular file, bad JSON, bad or short secret, bad or duplicate kid, insecure permissions.
    public init(contentsOfFile path: String) throws(KeyringError) {
        let file: RegularFileContents
        do {
            file = try RegularFileContents(atPath: path)
        } catch {
            switch error {
            case .missing: throw KeyringError(.missingFile, "no keyring file at \(path)")
            case .unreadable: throw KeyringError(.unreadableFile, "cannot read the keyring at \(path)")
            case .notRegularFile: throw KeyringError(.unreadableFile, "the keyring at \(path) is not a regular file")
            }
        }
        try self.init(json: file.data)
        if !isDevelopment && file.isAccessibleByOthers {
            throw KeyringError(
                .insecurePermissions,
                "the keyring \(path) is accessible by group or others (mode \(String(file.permissions, radix: 8))); run chmod 600"
            )
        }
    }

    /// Decodes a keyring from JSON: a launcher keyring (no `kind`, or `"kind": "launcher"`,
    /// keys with `secret`) or an app keyring (`"kind": "app"`, `"app"`, keys with `app_key`).
    /// - Parameter json: The file's bytes.
    /// - Throws: ``KeyringError`` for bad JSON, secrets, kids or app ids.
    public init(json: Data) throws(KeyringError) {
        let file: KeyringFile
        do {
            file = try JSONDecoder().decode(KeyringFile.self, from: json)
        } catch {
            throw KeyringError(.invalidJSON, "the keyring is not valid JSON of the expected shape")
        }
        let isApp: Bool
        switch file.kind {
        case nil, "launcher":
            guard file.app == nil else { throw KeyringError(.invalidJSON, "a launcher keyring names no app") }
            isApp = false
        case "app":
            guard file.app != nil else { throw KeyringError(.invalidJSON, "an app keyring must name its app") }
            isApp = true
        default:
            throw KeyringError(.invalidJSON, "the keyring's kind must be launcher or app")
        }
        // SPEC.md §13: the errors in this order. Every shape rule first (above: types, kind,
        // app; here: each key's secret member), then the app id, then the keys one by one.
        for entry in file.keys {
            // A launcher keyring's keys carry `secret`, an app keyring's `app_key`; never both,
            // so a root secret is never taken for an app key or the other way round.
            guard (isApp ? entry.appKey : entry.secret) != nil, (isApp ? entry.secret : entry.appKey) == nil else {
                throw KeyringError(.invalidJSON, "each key of \(isApp ? "an app" : "a launcher") keyring needs `\(isApp ? "app_key" : "secret")` and nothing else")
            }
        }
        if isApp, let app = file.app, !IdentifierSyntax.isValid(app) {
            throw KeyringError(.invalidAppID, "an app id must be 1 to 64 characters of [A-Za-z0-9._-]")
        }
        guard !file.keys.isEmpty else { throw KeyringError(.empty, "a keyring needs at least one key") }
        var keys: [KeyringKey] = []
        for entry in file.keys {
            guard KeyringKey.isValidKeyID(entry.kid) else {
                throw KeyringError(.invalidKeyID, "a kid must be 1 to \(KeyringKey.maximumKeyIDLength) characters of [A-Za-z0-9._-]")
            }
            guard let text = isApp ? entry.appKey : entry.secret, let bytes = Base64URL.decode(text) else {
                throw KeyringError(.invalidSecret, "the secret of `\(entry.kid)` is not unpadded base64url")
            }
            if isApp && bytes.count != Self.appKeyByteCount {
                throw KeyringError(.invalidSecret, "the app key of `\(entry.kid)` must be \(Self.appKeyByteCount) bytes")
            }
            keys.append(try KeyringKey(kid: entry.kid, status: entry.status, secret: try KeySecret(bytes: bytes)))
        }
        if isApp, let app = file.app {
            try self.init(appKeys: keys, forApp: app, isDevelopment: file.development ?? false)
        } else {
            try self.init(keys: keys, isDevelopment: file.development ?? false)
        }
    }

    /// The JSON form of this keyring, as written to a file (secrets included: handle it as
    /// you would the file).
    /// - Returns: Pretty-printed JSON bytes.
    public func jsonRepresentation() -> Data {
        let file = KeyringFile(
            kind: appID == nil ? "launcher" : "app",
            app: appID,
            development: isDevelopment,
            keys: keys.map { key in
                let text = key.secret.base64URLEncoded
                return KeyringFile.Entry(kid: key.kid, status: key.status, secret: appID == nil ? text : nil, appKey: appID == nil ? nil : text)
            }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(file)) ?? Data()
    }

    /// Writes the keyring to a file with mode 0600, atomically (a temporary file renamed over
    /// the old one), so a crash never leaves half a keyring.
    /// - Parameters:
    ///   - path: The destination.
    ///   - replacingExisting: `false` refuses an existing file (or symlink) at `path`, as
    ///     `keygen --export-app --out` does, so an export never overwrites a keyring.
    /// - Throws: ``KeyringError/Code/unreadableFile`` when it cannot be written,
    ///   ``KeyringError/Code/fileExists`` when `path` exists and may not be replaced.
    public func write(toFile path: String, replacingExisting: Bool = true) throws(KeyringError) {
        let temporary = path + ".tmp-\(getpid())"
        let fileManager = FileManager.default
        var data = jsonRepresentation()
        data.append(UInt8(ascii: "\n"))
        guard fileManager.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw KeyringError(.unreadableFile, "cannot create \(temporary)")
        }
        do {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            try fileManager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary)
            // rename(2) replaces an existing file atomically. (FileManager.replaceItemAt on
            // Linux removes the old file and then fails, leaving no keyring at all.)
            if replacingExisting {
                guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
            } else {
                // link(2) fails with EEXIST when anything (a symlink included) is at `path`:
                // the check and the creation are one step.
                guard link(temporary, path) == 0 else {
                    let existed = errno == EEXIST
                    try? fileManager.removeItem(atPath: temporary)
                    if existed { throw KeyringError(.fileExists, "\(path) already exists; refusing to overwrite it") }
                    throw CocoaError(.fileWriteUnknown)
                }
                try? fileManager.removeItem(atPath: temporary)
            }
        } catch let error as KeyringError {
            throw error
        } catch {
            try? fileManager.removeItem(atPath: temporary)
            throw KeyringError(.unreadableFile, "cannot write the keyring to \(path)")
        }
    }

    /// The key new launches are signed with: the last `active` key.
    public var signingKey: KeyringKey? { keys.last { $0.status == .active } }

    /// The key with a kid, whatever its status.
    /// - Parameter kid: The key id.
    /// - Returns: The key, or `nil`.
    public func key(kid: String) -> KeyringKey? { keys.first { $0.kid == kid } }

    /// A copy with one more key appended (it becomes the newest). Only a launcher keyring
    /// takes new keys: an app key that no root secret derives would be unknown to the launcher.
    /// - Parameter key: The new key; its kid must be new.
    /// - Returns: The new keyring.
    /// - Throws: ``KeyringError/Code/notLauncherKeyring`` for an app keyring.
    public func adding(_ key: KeyringKey) throws(KeyringError) -> Keyring {
        guard appID == nil else {
            throw KeyringError(.notLauncherKeyring, "an app keyring takes no new keys: add the key to the launcher keyring and export again")
        }
        return try Keyring(keys: keys + [key], isDevelopment: isDevelopment)
    }

    /// A copy with one key's status changed (retire to `verify-only`, or revoke).
    /// - Parameters:
    ///   - kid: The key id.
    ///   - status: The new status.
    /// - Returns: The new keyring, of the same kind.
    public func setting(_ status: KeyStatus, forKeyID kid: String) throws(KeyringError) -> Keyring {
        guard let index = keys.firstIndex(where: { $0.kid == kid }) else {
            throw KeyringError(.unknownKeyID, "no key has the kid `\(kid)`")
        }
        var keys = keys
        keys[index].status = status
        return try Keyring(checking: keys, isDevelopment: isDevelopment, appID: appID)
    }

    /// The app keyring of one app: every kid with its status, each root secret replaced by
    /// the app key derived from it (SPEC.md §2.2). What a partner web app receives: it
    /// verifies that app's launches and nothing else, and cannot mint.
    ///
    /// Re-export after retiring or revoking a kid here: the statuses are carried over.
    /// - Parameter appID: The app.
    /// - Returns: The app keyring (development flag carried over).
    /// - Throws: ``KeyringError/Code/notLauncherKeyring`` for an app keyring,
    ///   ``KeyringError/Code/invalidAppID`` for a bad app id.
    public func exportingApp(_ appID: String) throws(KeyringError) -> Keyring {
        guard self.appID == nil else {
            throw KeyringError(.notLauncherKeyring, "only a launcher keyring can export app keys; this is the app keyring of `\(self.appID!)`")
        }
        guard IdentifierSyntax.isValid(appID) else {
            throw KeyringError(.invalidAppID, "an app id must be 1 to 64 characters of [A-Za-z0-9._-]")
        }
        let appKeys = try self.appKeys(for: appID)
        var exported: [KeyringKey] = []
        for key in keys {
            let appKey = appKeys.entry(kid: key.kid)!.derived.appKey
            exported.append(try KeyringKey(kid: key.kid, status: key.status, secret: try KeySecret(bytes: appKey)))
        }
        return try Keyring(appKeys: exported, forApp: appID, isDevelopment: isDevelopment)
    }

    /// The keys of one app, for a signer, verifier or session sealer of that app: derived
    /// from the root secrets (launcher keyring) or the app keyring's own, at configuration
    /// time, never per request.
    /// - Parameter appID: The app.
    /// - Returns: The app's keys under every kid.
    /// - Throws: ``KeyringError/Code/appMismatch`` when an app keyring is asked for another app.
    func appKeys(for appID: String) throws(KeyringError) -> AppKeys {
        if let own = ownAppKeys {
            guard own.appID == appID else {
                throw KeyringError(.appMismatch, "this app keyring is for `\(own.appID)`, not `\(appID)`: it can only verify its own app")
            }
            return own
        }
        guard IdentifierSyntax.isValid(appID) else {
            throw KeyringError(.invalidAppID, "an app id must be 1 to 64 characters of [A-Za-z0-9._-]")
        }
        do {
            return try AppKeys(keys: keys, appID: appID, secretsAreAppKeys: false)
        } catch {
            throw KeyringError(.cryptoFailure, "OpenSSL failed to derive keys (error \(error.openSSLCode))")
        }
    }
}

private struct KeyringFile: Codable {
    struct Entry: Codable {
        let kid: String
        let status: KeyStatus
        let secret: String?
        let appKey: String?

        enum CodingKeys: String, CodingKey {
            case kid, status, secret
            case appKey = "app_key"
        }
    }
    let kind: String?
    let app: String?
    let development: Bool?
    let keys: [Entry]
}
