import Foundation
import WebAppRegistry

/// Mints launch URLs: the launcher's half of the handshake.
///
/// Run it where the signing key can be kept secret (the app's backend, or the CLI for test
/// URLs). A key embedded in a shipped app binary can be extracted by anyone.
///
/// ```swift
/// let signer = LaunchSigner(keyring: keyring, registry: registry)
/// let url = try signer.launchURL(for: "healthmagazin", user: user)
/// ```
public struct LaunchSigner: Sendable {
    /// The lifetime of a launch unless asked otherwise: long enough for a web view to load,
    /// short enough that a leaked URL is soon useless.
    public static let defaultLifetime: UInt64 = 60
    /// The longest lifetime the signer will mint.
    public static let maximumLifetime: UInt64 = 300

    /// The keys; the newest active one signs.
    public let keyring: Keyring
    /// The registered apps; launches go nowhere else.
    public let registry: Registry
    /// Every registered app's keys, derived from the root secrets once, here.
    private let appKeys: [String: AppKeys]

    /// Creates a signer, deriving every registered app's keys from the root secrets.
    /// - Parameters:
    ///   - keyring: A launcher keyring (root secrets) holding an active key.
    ///   - registry: The registered web apps.
    /// - Throws: ``KeyringError/Code/notLauncherKeyring`` for an app keyring: it holds one
    ///   app's verification keys and must never mint, not even for its own app.
    public init(keyring: Keyring, registry: Registry) throws(KeyringError) {
        if let appID = keyring.appID {
            throw KeyringError(.notLauncherKeyring, "the app keyring of `\(appID)` cannot mint launches; minting needs the launcher keyring")
        }
        var appKeys: [String: AppKeys] = [:]
        for app in registry.apps {
            appKeys[app.id] = try keyring.appKeys(for: app.id)
        }
        self.keyring = keyring
        self.registry = registry
        self.appKeys = appKeys
    }

    /// Mints the launch URL for a registered app: its registered URL plus `launch=<token>`.
    ///
    /// - Parameters:
    ///   - appID: The registered app's id.
    ///   - user: The user; names are NFC-normalised, everything is validated.
    ///   - mode: `.sealed` (default: claims encrypted) or `.signed`.
    ///   - lifetime: Seconds until expiry, 1 to ``maximumLifetime``; default 60.
    ///   - now: The issue time (injectable for tests).
    /// - Returns: The URL to open in the web view.
    /// - Throws: ``LaunchError`` with `unknown_app`, `invalid_claims`, `lifetime_too_long`,
    ///   `no_signing_key` or `crypto_failure`.
    public func launchURL(
        for appID: String,
        user: LaunchUser,
        mode: LaunchMode = .sealed,
        lifetime: UInt64 = defaultLifetime,
        now: Date = Date()
    ) throws(LaunchError) -> String {
        try launch(for: appID, user: user, mode: mode, lifetime: lifetime, now: now).url
    }

    /// Mints the launch URL for a registered URL (as a plugin deep link names it).
    ///
    /// - Parameters:
    ///   - url: The URL; it must be registered exactly (after normalisation).
    ///   - user: The user.
    ///   - mode: The mode.
    ///   - lifetime: Seconds until expiry.
    ///   - now: The issue time.
    /// - Returns: The launch URL.
    /// - Throws: ``LaunchError/Code/unknownApp`` for an unregistered URL, and the errors of
    ///   ``launchURL(for:user:mode:lifetime:now:)``.
    public func launchURL(
        forRegisteredURL url: RegisteredURL,
        user: LaunchUser,
        mode: LaunchMode = .sealed,
        lifetime: UInt64 = defaultLifetime,
        now: Date = Date()
    ) throws(LaunchError) -> String {
        guard let app = registry.app(at: url) else {
            throw LaunchError(.unknownApp, "that URL is not registered")
        }
        return try launchURL(for: app, user: user, mode: mode, lifetime: lifetime, now: now)
    }

    /// Mints just the token (the value of the `launch` parameter), e.g. for a POST form.
    ///
    /// - Parameters:
    ///   - appID: The registered app's id.
    ///   - user: The user.
    ///   - mode: The mode.
    ///   - lifetime: Seconds until expiry.
    ///   - now: The issue time.
    /// - Returns: The base64url token.
    public func launchToken(
        for appID: String,
        user: LaunchUser,
        mode: LaunchMode = .sealed,
        lifetime: UInt64 = defaultLifetime,
        now: Date = Date()
    ) throws(LaunchError) -> String {
        guard let app = registry.app(id: appID) else {
            throw LaunchError(.unknownApp, "no web app is registered with that id")
        }
        return try mint(for: app, user: user, mode: mode, lifetime: lifetime, now: Self.seconds(now), randomness: nil).token
    }

    private func launchURL(for app: WebApp, user: LaunchUser, mode: LaunchMode, lifetime: UInt64, now: Date) throws(LaunchError) -> String {
        let token = try mint(for: app, user: user, mode: mode, lifetime: lifetime, now: Self.seconds(now), randomness: nil).token
        return Self.launchURL(audience: app.url, token: token)
    }

    /// The registered URL with `launch=<token>` appended.
    static func launchURL(audience: RegisteredURL, token: String) -> String {
        audience.description + (audience.query == nil ? "?" : "&") + "launch=" + token
    }

    static func seconds(_ date: Date) -> UInt64 { UnixSeconds.of(date) }

    /// Fixed nonce and IV, for test vectors only. Not reachable through the public API.
    struct FixedRandomness {
        let nonce: [UInt8]
        let iv: [UInt8]
    }

    /// Everything minting produced, intermediates included (for SPEC.md's test vectors).
    struct Minted {
        let token: String
        let claimsBlock: [UInt8]
        let headerBytes: [UInt8]
        let body: [UInt8]
        let mac: [UInt8]
        let kid: String
        let nonce: [UInt8]
        let iv: [UInt8]?
        /// The expiry written into the header, in Unix seconds.
        let expiresAt: UInt64

        /// What the MAC covers (SPEC.md §4): computed on demand, for the test vectors only, so
        /// minting never builds the copy.
        var macInput: [UInt8] {
            let blob = Base64URL.decode(token) ?? []
            return Labels.tokenMAC + blob.dropLast(mac.count)
        }
    }

    func mint(
        for app: WebApp,
        user: LaunchUser,
        mode: LaunchMode,
        lifetime: UInt64,
        now: UInt64,
        randomness: FixedRandomness?
    ) throws(LaunchError) -> Minted {
        guard lifetime >= 1 else { throw LaunchError(.invalidLifetime, "the lifetime must be at least one second") }
        guard lifetime <= Self.maximumLifetime else {
            throw LaunchError(.lifetimeTooLong, "the lifetime may be at most \(Self.maximumLifetime) seconds")
        }
        let (expiresAt, overflow) = now.addingReportingOverflow(lifetime)
        guard !overflow else { throw LaunchError(.invalidLifetime, "the expiry does not fit in 64 bits") }
        guard let keys = appKeys[app.id] else {
            throw LaunchError(.unknownApp, "no web app is registered with that id")
        }
        guard let signing = keys.signing else {
            throw LaunchError(.noSigningKey, "the keyring has no active key")
        }
        let key = signing.key
        let derived = signing.derived
        let firstName = ClaimRules.normalisedName(user.firstName)
        let lastName = ClaimRules.normalisedName(user.lastName)
        guard ClaimRules.isValidAccessToken(user.accessToken.utf8) else {
            throw LaunchError(.invalidClaims, "the access token must be 0 to \(ClaimRules.maximumAccessTokenBytes) bytes of visible ASCII")
        }
        guard ClaimRules.isValidName(firstName), ClaimRules.isValidName(lastName) else {
            throw LaunchError(.invalidClaims, "names must be 1 to \(ClaimRules.maximumNameBytes) bytes without control characters or surrounding spaces")
        }
        guard KVNR.isValid(user.kvnumber.utf8) else {
            throw LaunchError(.invalidClaims, "the KVNR must be a letter, eight digits and a correct check digit")
        }
        // One draw from the CSPRNG for nonce and IV: each RAND_bytes call takes OpenSSL's
        // locks and its fork check (a getpid system call).
        let fresh = randomness == nil ? try SecureRandom.bytes(count: TokenLayout.nonceByteCount + AES256GCM.ivByteCount) : []
        let nonce: [UInt8]
        if let randomness { nonce = randomness.nonce } else { nonce = Array(fresh[..<TokenLayout.nonceByteCount]) }
        let header = LaunchHeader(
            version: TokenLayout.version,
            mode: mode,
            kid: key.kid,
            issuedAt: now,
            expiresAt: expiresAt,
            nonce: nonce,
            appID: app.id,
            audience: app.url.description
        )
        let headerBytes = TokenLayout.header(header)
        let claims = TokenLayout.claims(
            accessToken: user.accessToken,
            firstName: firstName,
            lastName: lastName,
            kvnumber: user.kvnumber
        )
        var iv: [UInt8]?
        let body: [UInt8]
        switch mode {
        case .signed:
            body = claims
        case .sealed:
            let freshIV: [UInt8]
            if let randomness { freshIV = randomness.iv } else { freshIV = Array(fresh[TokenLayout.nonceByteCount...]) }
            iv = freshIV
            do {
                body = try AES256GCM.sealPrefixingIV(claims, key: derived.seal, iv: freshIV, associatedData: headerBytes)
            } catch {
                throw LaunchError(error)
            }
        }
        // The whole token in one buffer, sized up front; the MAC is appended in place.
        var writer = ByteWriter(capacity: headerBytes.count + 4 + body.count + TokenLayout.macByteCount)
        writer.append(contentsOf: headerBytes)
        writer.appendPrefixed32(body)
        var blob = writer.bytes
        let mac: [UInt8]
        do {
            mac = try derived.mac.authenticationCode(prefix: Labels.tokenMAC, message: blob)
        } catch {
            throw LaunchError(error)
        }
        blob.append(contentsOf: mac)
        return Minted(
            token: Base64URL.encode(blob),
            claimsBlock: claims,
            headerBytes: headerBytes,
            body: body,
            mac: mac,
            kid: key.kid,
            nonce: nonce,
            iv: iv,
            expiresAt: expiresAt
        )
    }
}
