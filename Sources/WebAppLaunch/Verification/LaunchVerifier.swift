import Foundation
import WebAppRegistry

/// Verifies launches: the web app's half of the handshake.
///
/// The order is fixed (SPEC.md, "Verification order") and every step fails closed:
/// 1. size and shape: bounded length, strict base64url, known version and mode;
/// 2. the kid must be in the keyring and not revoked; there is no default key;
/// 3. the MAC, compared in constant time, before any other field is interpreted;
/// 4. time, in both directions, with skew; lifetime bounds;
/// 5. audience and app id against this verifier's configuration (never request headers),
///    and the request's other parameters against the registered URL's;
/// 6. the claims: decryption (sealed), KVNR, NFC names, lengths.
/// Replay is the caller's step: claim ``VerifiedLaunch/replayID`` once every check passed.
public struct LaunchVerifier: Sendable {
    /// The keys accepted.
    public let keyring: Keyring
    /// The app id launches must carry.
    public let appID: String
    /// The registered URLs (audiences) launches may carry, normalised.
    public let audiences: [RegisteredURL]
    /// Tolerances.
    public let policy: VerificationPolicy

    /// The app's keys under every kid of the keyring, derived once, here: verification
    /// never runs HKDF.
    let appKeys: AppKeys

    /// The canonical audiences, and each one's query components, precomputed.
    /// The parameters are raw bytes, sorted bytewise: compared as `String`s, Swift's Unicode
    /// canonical equivalence would let `unit=\u{212A}` (KELVIN SIGN) pass for `unit=K`.
    private let expected: [(audience: [UInt8], parameters: [[UInt8]])]

    /// Creates a verifier for one app, deriving the app's keys now.
    /// - Parameters:
    ///   - keyring: The keys accepted (`active` and `verify-only`): the launcher keyring, or
    ///     the app keyring of `appID`.
    ///   - appID: The app id launches must carry.
    ///   - audiences: The registered URL(s) this app is served at.
    ///   - policy: Skew, maximum lifetime, maximum token length.
    /// - Throws: ``KeyringError/Code/appMismatch`` when `keyring` is the app keyring of
    ///   another app; ``KeyringError/Code/invalidAppID`` for a bad app id.
    public init(keyring: Keyring, appID: String, audiences: [RegisteredURL], policy: VerificationPolicy = VerificationPolicy()) throws(KeyringError) {
        precondition(!audiences.isEmpty, "a verifier needs at least one audience")
        self.appKeys = try keyring.appKeys(for: appID)
        self.keyring = keyring
        self.appID = appID
        self.audiences = audiences
        self.policy = policy
        self.expected = audiences.map { audience in
            let parameters = audience.query.map { Self.sortedBytes($0.utf8.split(separator: UInt8(ascii: "&"))) } ?? []
            return (Array(audience.description.utf8), parameters)
        }
    }

    /// Creates a verifier for a registered app.
    /// - Parameters:
    ///   - keyring: The keys accepted: the launcher keyring, or the app keyring of `app`.
    ///   - app: The registry entry of the app this verifier serves.
    ///   - policy: Tolerances.
    /// - Throws: ``KeyringError/Code/appMismatch`` when `keyring` is another app's app keyring.
    public init(keyring: Keyring, app: WebApp, policy: VerificationPolicy = VerificationPolicy()) throws(KeyringError) {
        try self.init(keyring: keyring, appID: app.id, audiences: [app.url], policy: policy)
    }

    /// Verifies a request: its raw query (and form body for POST).
    ///
    /// - Parameters:
    ///   - query: The raw query string without `?`.
    ///   - form: The raw form body of a POST, or `nil`.
    ///   - now: The current time (injected in tests).
    /// - Returns: The verified launch.
    /// - Throws: ``LaunchError`` with the precise code; show clients only its
    ///   ``LaunchError/publicReason``.
    public func verify(query: Substring?, form: Substring? = nil, now: Date) throws(LaunchError) -> VerifiedLaunch {
        let parameters = try LaunchParameters(query: query, form: form)
        return try verify(token: parameters.token, otherQueryParameters: parameters.otherQueryParameters, now: Self.seconds(now))
    }

    /// Verifies a whole launch URL, e.g. pasted into the CLI. The URL without its `launch`
    /// parameter must be the token's audience, exactly.
    ///
    /// - Parameters:
    ///   - url: The launch URL.
    ///   - now: The current time.
    /// - Returns: The verified launch.
    public func verify(url: String, now: Date) throws(LaunchError) -> VerifiedLaunch {
        // Delimiters are bytes, as everywhere in the URL grammar: a `?` or `#` followed by a
        // combining mark is one Character, and a search by Character would miss it.
        let bytes = url.utf8
        guard let questionMark = bytes.firstIndex(of: UInt8(ascii: "?")), !bytes.contains(UInt8(ascii: "#")) else {
            throw LaunchError(.malformed, "the URL has no query or carries a fragment")
        }
        let query = Substring(bytes[bytes.index(after: questionMark)...])
        let parameters = try LaunchParameters(query: query)
        let launch = try verify(token: parameters.token, otherQueryParameters: parameters.otherQueryParameters, now: Self.seconds(now))
        var base = String(decoding: bytes[..<questionMark], as: UTF8.self)
        if !parameters.otherQueryParameters.isEmpty { base += "?" + parameters.otherQueryParameters.joined(separator: "&") }
        guard (try? RegisteredURL(base))?.description == launch.header.audience else {
            throw LaunchError(.wrongAudience, "the URL is not the token's registered URL")
        }
        return launch
    }

    /// Verifies a token alone, without a request around it (no parameter check).
    ///
    /// - Parameters:
    ///   - token: The `launch` value.
    ///   - now: The current time.
    /// - Returns: The verified launch.
    public func verify(token: some StringProtocol, now: Date) throws(LaunchError) -> VerifiedLaunch {
        try verify(token: Substring(token), otherQueryParameters: nil, now: Self.seconds(now))
    }

    static func seconds(_ date: Date) -> UInt64 { UnixSeconds.of(date) }

    /// Query pieces as raw bytes in bytewise order (SPEC.md §11 step 9: byte for byte).
    static func sortedBytes(_ pieces: [some Collection<UInt8>]) -> [[UInt8]] {
        pieces.map { Array($0) }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The verification proper. `otherQueryParameters == nil` skips the parameter check.
    func verify(token: Substring, otherQueryParameters: [Substring]?, now: UInt64) throws(LaunchError) -> VerifiedLaunch {
        // 1. Size and shape, before any work proportional to the input.
        guard token.utf8.count <= policy.maximumTokenLength else {
            throw LaunchError(.tooLarge, "the token exceeds \(policy.maximumTokenLength) bytes")
        }
        var text = token
        let decoded = text.withUTF8 { Base64URL.decode(utf8: UnsafeRawBufferPointer($0)) }
        guard let blob = decoded else {
            throw LaunchError(.malformed, "the token is not canonical unpadded base64url")
        }
        let prefix = try TokenLayout.prefix(of: blob)

        // 2. The kid must name a usable key; unknown kids are never replaced by a default.
        guard let entry = appKeys.entry(kidBytes: prefix.kid) else {
            throw LaunchError(.unknownKey, "the token's kid is not in the keyring")
        }
        let derived = entry.derived
        guard entry.key.status.canVerify else {
            throw LaunchError(.revokedKey, "the token's key is revoked")
        }

        // 3. The MAC over label || everything before the MAC, compared in constant time.
        let macStart = blob.count - TokenLayout.macByteCount
        var expectedMAC = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let macResult = withUnsafeMutableBytes(of: &expectedMAC) { expected in
            blob.withUnsafeBytes { blob in
                Labels.tokenMAC.withUnsafeBytes { label in
                    Result { () throws(CryptoFailure) -> Bool in
                        try derived.mac.authenticate(prefix: label, message: UnsafeRawBufferPointer(rebasing: blob[..<macStart]), into: expected)
                        return ConstantTime.equals(UnsafeRawBufferPointer(expected), UnsafeRawBufferPointer(rebasing: blob[macStart...]))
                    }
                }
            }
        }
        let macMatches: Bool
        switch macResult {
        case .success(let matches): macMatches = matches
        case .failure(let failure): throw LaunchError(failure)
        }
        guard macMatches else { throw LaunchError(.badSignature, "the token's MAC does not match") }

        // Only now is the rest of the token interpreted.
        let parsed = try TokenLayout.parse(blob)
        let header = parsed.header

        // 4. Time, both directions, with overflow-safe arithmetic.
        guard header.expiresAt > header.issuedAt else {
            throw LaunchError(.invalidLifetime, "the token expires before it is issued")
        }
        guard header.expiresAt - header.issuedAt <= policy.maximumLifetime else {
            throw LaunchError(.lifetimeTooLong, "the token's lifetime exceeds \(policy.maximumLifetime) seconds")
        }
        let (latestStart, _) = now.addingReportingOverflow(policy.clockSkew)
        guard header.issuedAt <= latestStart || latestStart < now else {
            throw LaunchError(.notYetValid, "the token is issued in the future")
        }
        let (deadline, deadlineOverflow) = header.expiresAt.addingReportingOverflow(policy.clockSkew)
        guard deadlineOverflow || now < deadline else {
            throw LaunchError(.expired, "the token has expired")
        }

        // 5. Audience and app, from configuration only.
        guard let expected = expected.first(where: { $0.audience[...] == parsed.audienceBytes }) else {
            throw LaunchError(.wrongAudience, "the token is for another registered URL")
        }
        guard header.appID == appID else {
            throw LaunchError(.wrongApp, "the token is for another app")
        }
        if let otherQueryParameters, Self.sortedBytes(otherQueryParameters.map(\.utf8)) != expected.parameters {
            throw LaunchError(.unexpectedParameters, "the request's parameters differ from the registered URL's")
        }

        // 6. Claims: a signed body is read in place; a sealed one is opened first.
        let claims: LaunchClaims
        switch header.mode {
        case .signed:
            claims = try TokenLayout.parseClaims(parsed.body)
        case .sealed:
            let body = parsed.body
            guard body.count >= AES256GCM.ivByteCount + AES256GCM.tagByteCount else {
                throw LaunchError(.invalidClaims, "the sealed body is too short")
            }
            let ivEnd = body.startIndex + AES256GCM.ivByteCount
            let opened: [UInt8]
            do {
                opened = try AES256GCM.open(body[ivEnd...], key: derived.seal, iv: body[..<ivEnd], associatedData: parsed.headerBytes)
            } catch {
                switch error {
                case .authenticationFailed: throw LaunchError(.invalidClaims, "the sealed claims do not decrypt")
                case .crypto(let failure): throw LaunchError(failure)
                }
            }
            claims = try TokenLayout.parseClaims(opened[...])
        }

        let replayID: ReplayID
        do {
            replayID = try derived.replayID(nonce: header.nonce)
        } catch {
            throw LaunchError(error)
        }
        return VerifiedLaunch(
            header: header,
            claims: claims,
            replayID: replayID,
            replayDeadline: ReplayRetention.deadline(expiresAt: header.expiresAt)
        )
    }
}
