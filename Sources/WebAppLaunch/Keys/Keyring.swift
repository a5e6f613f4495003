import Foundation

/// The set of keys a launcher signs with and a verifier accepts, loaded from a JSON file.
///
/// ```json
/// {"development": false,
///  "keys": [{"kid": "2026-11", "status": "active", "secret": "<base64url, 32+ bytes>"}]}
/// ```
///
/// Keys are listed oldest first; the signer uses the last `active` one. A verifier looks a
/// token's kid up here and rejects unknown or revoked kids: there is no default key.
/// A production keyring (`development: false`) whose file is readable or writable by group
/// or others is refused, as ssh refuses a private key with loose permissions.
public struct Keyring: Sendable {
    /// The keys, oldest first.
    public let keys: [KeyringKey]
    /// Whether these are development keys (shipped in the repository, hence public). The
    /// server refuses to serve non-loopback addresses with them.
    ///
    /// `true` when the keyring says so, and also whenever any key's secret is one of the
    /// project's published development secrets (recognised by fingerprint), whatever the
    /// keyring's flag says: a copy of the shipped keyring without its flag is still public.
    public let isDevelopment: Bool
    /// Each kid's key and derived keys, for the verifier's one lookup per token.
    private let derived: [String: (key: KeyringKey, keys: DerivedKeys)]

    /// Creates a keyring from keys.
    /// - Parameters:
    ///   - keys: The keys, oldest first; kids must be unique.
    ///   - isDevelopment: Whether the keys are development keys. A keyring holding a
    ///     published development secret is development even when this is `false`.
    /// - Throws: ``KeyringError`` for duplicates, an empty list or a derivation failure.
    public init(keys: [KeyringKey], isDevelopment: Bool) throws(KeyringError) {
        guard !keys.isEmpty else { throw KeyringError(.empty, "a keyring needs at least one key") }
        var derived: [String: (key: KeyringKey, keys: DerivedKeys)] = [:]
        var holdsPublishedSecret = false
        for key in keys {
            guard derived[key.kid] == nil else {
                throw KeyringError(.duplicateKeyID, "the kid `\(key.kid)` appears twice")
            }
            do {
                derived[key.kid] = (key, try DerivedKeys(secret: key.secret))
            } catch {
                throw KeyringError(.cryptoFailure, "OpenSSL failed to derive keys (error \(error.openSSLCode))")
            }
            do {
                if try PublishedDevelopmentSecrets.contains(key.secret) { holdsPublishedSecret = true }
            } catch {
                throw KeyringError(.cryptoFailure, "OpenSSL failed to fingerprint a key (error \(error.openSSLCode ?? 0))")
            }
        }
        self.keys = keys
        self.isDevelopment = isDevelopment || holdsPublishedSecret
        self.derived = derived
    }

    /// Loads a keyring file, refusing loose permissions on a production keyring.
    ///
    /// A symlink is followed (Kubernetes mounts secrets as links): the permissions judged
    /// are those of the regular file the path resolves to, read from the same open
    /// descriptor as its bytes, never the link's own (always 0777).
    /// - Parameter path: The file's path.
    /// - Throws: ``KeyringError`` naming the problem: missing file, unreadable or not a
    ///   regular file, bad JSON, bad or short secret, bad or duplicate kid, insecure permissions.
    public init(contentsOfFile path: String) throws(KeyringError) {
        let (data, permissions) = try Self.readRegularFile(atPath: path)
        try self.init(json: data)
        if !isDevelopment && permissions & 0o077 != 0 {
            throw KeyringError(
                .insecurePermissions,
                "the keyring \(path) is accessible by group or others (mode \(String(permissions, radix: 8))); run chmod 600"
            )
        }
    }

    /// The bytes and permission bits of the regular file `path` resolves to, both taken
    /// through one descriptor (`fstat`, not `lstat`), so the mode checked is the mode of the
    /// bytes read even if the path changes meanwhile. `O_NONBLOCK` keeps a FIFO from
    /// blocking the open; it is then refused as not a regular file.
    private static func readRegularFile(atPath path: String) throws(KeyringError) -> (data: Data, permissions: Int) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw KeyringError(.missingFile, "no keyring file at \(path)") }
            throw KeyringError(.unreadableFile, "cannot read the keyring at \(path)")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & 0o170000 == 0o100000 else {
            throw KeyringError(.unreadableFile, "the keyring at \(path) is not a regular file")
        }
        do {
            return (try handle.readToEnd() ?? Data(), Int(status.st_mode & 0o7777))
        } catch {
            throw KeyringError(.unreadableFile, "cannot read the keyring at \(path)")
        }
    }

    /// Decodes a keyring from JSON.
    /// - Parameter json: The file's bytes.
    /// - Throws: ``KeyringError`` for bad JSON, secrets or kids.
    public init(json: Data) throws(KeyringError) {
        let file: KeyringFile
        do {
            file = try JSONDecoder().decode(KeyringFile.self, from: json)
        } catch {
            throw KeyringError(.invalidJSON, "the keyring is not valid JSON of the expected shape")
        }
        var keys: [KeyringKey] = []
        for entry in file.keys {
            guard let bytes = Base64URL.decode(entry.secret) else {
                throw KeyringError(.invalidSecret, "the secret of `\(entry.kid)` is not unpadded base64url")
            }
            keys.append(try KeyringKey(kid: entry.kid, status: entry.status, secret: try KeySecret(bytes: bytes)))
        }
        try self.init(keys: keys, isDevelopment: file.development ?? false)
    }

    /// The JSON form of this keyring, as written to a file (secrets included: handle it as
    /// you would the file).
    /// - Returns: Pretty-printed JSON bytes.
    public func jsonRepresentation() -> Data {
        let file = KeyringFile(
            development: isDevelopment,
            keys: keys.map { KeyringFile.Entry(kid: $0.kid, status: $0.status, secret: $0.secret.base64URLEncoded) }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(file)) ?? Data()
    }

    /// Writes the keyring to a file with mode 0600, atomically (a temporary file renamed over
    /// the old one), so a crash never leaves half a keyring.
    /// - Parameter path: The destination.
    /// - Throws: ``KeyringError/Code/unreadableFile`` when it cannot be written.
    public func write(toFile path: String) throws(KeyringError) {
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
            guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
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

    /// A copy with one more key appended (it becomes the newest).
    /// - Parameter key: The new key; its kid must be new.
    /// - Returns: The new keyring.
    public func adding(_ key: KeyringKey) throws(KeyringError) -> Keyring {
        try Keyring(keys: keys + [key], isDevelopment: isDevelopment)
    }

    /// A copy with one key's status changed (retire to `verify-only`, or revoke).
    /// - Parameters:
    ///   - kid: The key id.
    ///   - status: The new status.
    /// - Returns: The new keyring.
    public func setting(_ status: KeyStatus, forKeyID kid: String) throws(KeyringError) -> Keyring {
        guard let index = keys.firstIndex(where: { $0.kid == kid }) else {
            throw KeyringError(.unknownKeyID, "no key has the kid `\(kid)`")
        }
        var keys = keys
        keys[index].status = status
        return try Keyring(keys: keys, isDevelopment: isDevelopment)
    }

    func derivedKeys(kid: String) -> DerivedKeys? { derived[kid]?.keys }

    /// Looks a kid up given as raw token bytes, without building a String on the hot path
    /// beyond what the dictionary needs.
    func derivedKeys(kidBytes: ArraySlice<UInt8>) -> (KeyringKey, DerivedKeys)? {
        let kid = String(decoding: kidBytes, as: UTF8.self)
        guard let entry = derived[kid] else { return nil }
        return (entry.key, entry.keys)
    }
}

private struct KeyringFile: Codable {
    struct Entry: Codable {
        let kid: String
        let status: KeyStatus
        let secret: String
    }
    let development: Bool?
    let keys: [Entry]
}
