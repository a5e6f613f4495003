/// One app's derived keys for every kid of a keyring: what a signer, verifier or session
/// sealer of that app looks kids up in.
///
/// Built once per app when the signer, verifier or sealer is configured (or, for an app
/// keyring, when it loads), never per request. Immutable after `init`, hence `Sendable`.
final class AppKeys: Sendable {
    /// One kid's key (status) and the keys derived for the app. A class: every verification
    /// looks one up, and handing out a reference is one retain where copying the key's
    /// fields was several.
    final class Entry: Sendable {
        /// The keyring key: kid, status and the secret (root secret or app key).
        let key: KeyringKey
        /// The app's keys under that kid.
        let derived: DerivedKeys

        init(key: KeyringKey, derived: DerivedKeys) {
            self.key = key
            self.derived = derived
        }
    }

    /// The app these keys are for.
    let appID: String
    /// Every kid of the keyring, whatever its status.
    private let entries: [String: Entry]
    /// The same entries with each kid's bytes, for tokens read in place: a keyring holds a
    /// handful of kids, and comparing bytes beats making a `String` and hashing it.
    private let entriesByBytes: [(kid: [UInt8], entry: Entry)]
    /// The last `active` key's entry: it signs launches and seals session cookies.
    let signing: Entry?

    /// Derives (launcher keyring) or adopts (app keyring) an app's keys.
    /// - Parameters:
    ///   - keys: The keyring's keys, oldest first.
    ///   - appID: The app.
    ///   - secretsAreAppKeys: `true` for an app keyring, whose secrets already are the app keys.
    init(keys: [KeyringKey], appID: String, secretsAreAppKeys: Bool) throws(CryptoFailure) {
        var entries: [String: Entry] = [:]
        var entriesByBytes: [(kid: [UInt8], entry: Entry)] = []
        var signing: Entry?
        for key in keys {
            let appKey = secretsAreAppKeys ? key.secret.bytes : try DerivedKeys.appKey(rootSecret: key.secret.bytes, appID: appID)
            let entry = Entry(key: key, derived: try DerivedKeys(appKey: appKey))
            entries[key.kid] = entry
            entriesByBytes.append((Array(key.kid.utf8), entry))
            if key.status == .active { signing = entry }
        }
        self.appID = appID
        self.entries = entries
        self.entriesByBytes = entriesByBytes
        self.signing = signing
    }

    /// The entry of a kid, whatever its status.
    func entry(kid: String) -> Entry? { entries[kid] }

    /// Looks a kid up given as raw token bytes.
    func entry(kidBytes: ArraySlice<UInt8>) -> Entry? {
        kidBytes.withUnsafeBytes { entry(kidBytes: $0) }
    }

    /// Looks a kid up given as borrowed token bytes (kids are public: no constant time needed).
    func entry(kidBytes: UnsafeRawBufferPointer) -> Entry? {
        for candidate in entriesByBytes where Bytes.equal(candidate.kid, kidBytes) { return candidate.entry }
        return nil
    }
}
