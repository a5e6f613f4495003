import WebAppRegistry

/// Seals small payloads (the web app's session cookie) with AES-256-GCM under the app's
/// session key, so a cookie is neither readable nor forgeable, and opens only for the app it
/// was sealed for (SPEC.md §12).
///
/// Text form: base64url of `version u8 (2) | kid_len u8 | kid | iv[12] | ciphertext | tag[16]`,
/// with `"WebAppLaunch-v2 session" || u8 app_len || app || u8 kid_len || kid` as associated
/// data. Sealed under the signing key (last `active`); opened under any key that may verify,
/// so rotation does not log users out.
public struct SessionSealer: Sendable {
    /// The app whose session key seals and opens.
    public let appID: String
    private let keys: AppKeys
    /// What sealing under the signing key needs, built once per sealer (a reload builds a
    /// new sealer), or `nil` without an active key.
    private let sealing: Sealing?
    static let version: UInt8 = 2
    /// The longest cookie text opened, in bytes.
    static let maximumTextBytes = 8192

    /// Creates a sealer for one app, deriving its session keys now.
    /// - Parameters:
    ///   - keyring: The launcher keyring, or the app keyring of `appID`.
    ///   - appID: The app whose sessions these are.
    /// - Throws: ``KeyringError/Code/appMismatch`` when `keyring` is another app's app keyring.
    public init(keyring: Keyring, appID: String) throws(KeyringError) {
        self.appID = appID
        self.keys = try keyring.appKeys(for: appID)
        sealing = Sealing(keys: keys, appID: appID)
    }

    /// Creates the sealer of a verifier's app, reusing the keys the verifier derived.
    /// - Parameter verifier: The app's verifier.
    public init(verifier: LaunchVerifier) {
        self.appID = verifier.appID
        self.keys = verifier.appKeys
        sealing = Sealing(keys: keys, appID: appID)
    }

    /// The signing key's session key, the envelope's bytes before the IV
    /// (`version | kid_len | kid`) and the associated data: the same for every cookie a
    /// sealer seals, so built once instead of per accepted launch.
    private struct Sealing: Sendable {
        let key: AES256GCMKey
        let header: [UInt8]
        let associatedData: [UInt8]

        init?(keys: AppKeys, appID: String) {
            guard let signing = keys.signing else { return nil }
            let kid = Array(signing.key.kid.utf8)
            key = signing.derived.session
            header = [SessionSealer.version, UInt8(kid.count)] + kid
            associatedData = SessionSealer.associatedData(appID: appID, kid: kid[...])
        }
    }

    /// Seals a payload.
    /// - Parameter payload: The bytes to protect.
    /// - Returns: Cookie-safe text.
    /// - Throws: `no_signing_key` or `crypto_failure`.
    public func seal(_ payload: [UInt8]) throws(LaunchError) -> String {
        try seal(payload, iv: try SecureRandom.bytes(count: AES256GCM.ivByteCount))
    }

    /// Seals with a given IV: the test vectors' path. Never reuse an IV.
    func seal(_ payload: [UInt8], iv: [UInt8]) throws(LaunchError) -> String {
        guard let sealing else {
            throw LaunchError(.noSigningKey, "the keyring has no active key")
        }
        let envelope: [UInt8]
        do {
            envelope = try AES256GCM.seal(payload, key: sealing.key, iv: iv, associatedData: sealing.associatedData, after: sealing.header)
        } catch {
            throw LaunchError(error)
        }
        return Base64URL.encode(envelope)
    }

    /// Opens sealed text.
    /// - Parameter text: Text made by ``seal(_:)``.
    /// - Returns: The payload, or `nil` when the text is malformed, tampered with, sealed for
    ///   another app, or sealed under a key that is unknown or revoked. Callers treat `nil` as
    ///   "no session".
    public func open(_ text: some StringProtocol) -> [UInt8]? {
        guard text.utf8.count <= Self.maximumTextBytes, let bytes = Base64URL.decode(text), bytes.count > 2, bytes[0] == Self.version else {
            return nil
        }
        let kidLength = Int(bytes[1])
        let ivStart = 2 + kidLength
        guard kidLength >= 1, kidLength <= KeyringKey.maximumKeyIDLength,
              bytes.count >= ivStart + AES256GCM.ivByteCount + AES256GCM.tagByteCount
        else { return nil }
        let kid = bytes[2..<ivStart]
        guard kid.allSatisfy(IdentifierSyntax.isIdentifierByte), let entry = keys.entry(kidBytes: kid), entry.key.status.canVerify else { return nil }
        let ivEnd = ivStart + AES256GCM.ivByteCount
        return try? AES256GCM.open(
            bytes[ivEnd...],
            key: entry.derived.session,
            iv: bytes[ivStart..<ivEnd],
            associatedData: ArraySlice(Self.associatedData(appID: appID, kid: kid))
        )
    }

    /// Seals a session (SPEC.md §12): its payload, under this app's session key.
    /// - Parameter session: The session; it must be for this sealer's app.
    /// - Returns: The cookie value.
    /// - Throws: `invalid_claims` for a session of another app, `no_signing_key`, `crypto_failure`.
    package func sealSession(_ session: SessionPayload) throws(LaunchError) -> String {
        try sealSession(session, iv: try SecureRandom.bytes(count: AES256GCM.ivByteCount))
    }

    /// Seals a session with a given IV: the test vectors' path.
    func sealSession(_ session: SessionPayload, iv: [UInt8]) throws(LaunchError) -> String {
        guard session.appID == appID else { throw LaunchError(.invalidClaims, "the session is for another app") }
        return try seal(session.encoded(), iv: iv)
    }

    /// Opens a session cookie (SPEC.md §12): the envelope, then the payload, which must be
    /// for this app and not yet expired.
    /// - Parameters:
    ///   - text: The cookie value.
    ///   - now: The current time, seconds since 1970.
    /// - Returns: The session, or `nil` for no session.
    package func openSession(_ text: some StringProtocol, now: UInt64) -> SessionPayload? {
        guard let bytes = open(text), let session = SessionPayload.decode(bytes),
              session.appID == appID, now < session.expiresAt
        else { return nil }
        return session
    }

    /// `"WebAppLaunch-v2 session" || u8 app_len || app || u8 kid_len || kid`.
    private static func associatedData(appID: String, kid: ArraySlice<UInt8>) -> [UInt8] {
        let app = Array(appID.utf8)
        return Labels.session + [UInt8(app.count)] + app + [UInt8(kid.count)] + kid
    }
}
