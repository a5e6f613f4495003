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

    /// The canonical audiences, each with its bytes and query components precomputed.
    private let expected: [ExpectedAudience]
    /// `appID`'s bytes, compared with the token's in place.
    private let appIDBytes: [UInt8]

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
        self.expected = audiences.map(ExpectedAudience.init)
        self.appIDBytes = Array(appID.utf8)
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
        let (baseText, query) = try LaunchParameters.splittingWholeURL(url[...])
        let parameters = try LaunchParameters(query: query)
        let launch = try verify(token: parameters.token, otherQueryParameters: parameters.otherQueryParameters, now: Self.seconds(now))
        var base = String(baseText)
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
    // Inlinable: a generic function runs unspecialised when called from another module, and
    // copied the verified launch through value witnesses on every call.
    @inlinable
    public func verify(token: some StringProtocol, now: Date) throws(LaunchError) -> VerifiedLaunch {
        try verify(token: Substring(token), otherQueryParameters: nil, now: Self.seconds(now))
    }

    @usableFromInline
    static func seconds(_ date: Date) -> UInt64 { UnixSeconds.of(date) }

    /// Query pieces as raw bytes in bytewise order (SPEC.md §11 step 9: byte for byte).
    static func sortedBytes(_ pieces: [some Collection<UInt8>]) -> [[UInt8]] {
        pieces.map { Array($0) }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The verification proper. `otherQueryParameters == nil` skips the parameter check.
    @usableFromInline
    func verify(token: Substring, otherQueryParameters: [Substring]?, now: UInt64) throws(LaunchError) -> VerifiedLaunch {
        // 1. Size and shape, before any work proportional to the input.
        guard token.utf8.count <= policy.maximumTokenLength else {
            throw LaunchError(.tooLarge, "the token exceeds \(policy.maximumTokenLength) bytes")
        }
        // The token is decoded into a buffer of its own and read in place from here on:
        // fields are offsets into it, and only what the verified launch keeps is copied out.
        guard let blobCount = Base64URL.decodedByteCount(textCount: token.utf8.count) else {
            throw LaunchError(.malformed, "the token is not canonical unpadded base64url")
        }
        // The buffer starts with the MAC's label, so the MAC input (label || token without
        // its MAC) is one contiguous run: one update, as the OpenSSL floor measures.
        let labelCount = Labels.tokenMAC.count
        let labelled = UnsafeMutableRawBufferPointer.allocate(byteCount: labelCount + blobCount, alignment: 16)
        defer { labelled.deallocate() }
        Labels.tokenMAC.withUnsafeBytes { labelled.copyMemory(from: $0) }
        var text = token
        guard text.withUTF8({ Base64URL.decode(utf8: UnsafeRawBufferPointer($0), into: UnsafeMutableRawBufferPointer(rebasing: labelled[labelCount...])) }) else {
            throw LaunchError(.malformed, "the token is not canonical unpadded base64url")
        }
        return try verify(labelled: labelled, labelCount: labelCount, otherQueryParameters: otherQueryParameters, now: now)
    }

    /// Steps 1 (shape) to 6 over the decoded token, which follows `labelCount` bytes of MAC
    /// label in `labelled` (mutable: a sealed body is opened in place).
    private func verify(labelled: UnsafeMutableRawBufferPointer, labelCount: Int, otherQueryParameters: [Substring]?, now: UInt64) throws(LaunchError) -> VerifiedLaunch {
        let mutableBlob = UnsafeMutableRawBufferPointer(rebasing: labelled[labelCount...])
        let blob = UnsafeRawBufferPointer(mutableBlob)
        let prefix = try TokenLayout.prefix(of: blob)

        // 2. The kid must name a usable key; unknown kids are never replaced by a default.
        guard let entry = appKeys.entry(kidBytes: UnsafeRawBufferPointer(rebasing: blob[prefix.kid])) else {
            throw LaunchError(.unknownKey, "the token's kid is not in the keyring")
        }
        let derived = entry.derived
        guard entry.key.status.canVerify else {
            throw LaunchError(.revokedKey, "the token's key is revoked")
        }

        // 3. The MAC over label || everything before the MAC, compared in constant time.
        let macStart = blob.count - TokenLayout.macByteCount
        let macInput = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(labelled)[..<(labelCount + macStart)])
        var expectedMAC = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let macResult = withUnsafeMutableBytes(of: &expectedMAC) { expected in
            Result { () throws(CryptoFailure) -> Bool in
                try derived.mac.authenticate(prefix: UnsafeRawBufferPointer(start: nil, count: 0), message: macInput, into: expected)
                return ConstantTime.equals(UnsafeRawBufferPointer(expected), UnsafeRawBufferPointer(rebasing: blob[macStart...]))
            }
        }
        let macMatches: Bool
        switch macResult {
        case .success(let matches): macMatches = matches
        case .failure(let failure): throw LaunchError(failure)
        }
        guard macMatches else { throw LaunchError(.badSignature, "the token's MAC does not match") }

        // Only now is the rest of the token interpreted.
        let fields = try TokenLayout.fields(of: blob)

        // 4. Time, both directions, with overflow-safe arithmetic.
        guard fields.expiresAt > fields.issuedAt else {
            throw LaunchError(.invalidLifetime, "the token expires before it is issued")
        }
        guard fields.expiresAt - fields.issuedAt <= policy.maximumLifetime else {
            throw LaunchError(.lifetimeTooLong, "the token's lifetime exceeds \(policy.maximumLifetime) seconds")
        }
        let (latestStart, _) = now.addingReportingOverflow(policy.clockSkew)
        guard fields.issuedAt <= latestStart || latestStart < now else {
            throw LaunchError(.notYetValid, "the token is issued in the future")
        }
        let (deadline, deadlineOverflow) = fields.expiresAt.addingReportingOverflow(policy.clockSkew)
        guard deadlineOverflow || now < deadline else {
            throw LaunchError(.expired, "the token has expired")
        }

        // 5. Audience and app, from configuration only, compared byte for byte.
        let audience = UnsafeRawBufferPointer(rebasing: blob[fields.audience])
        guard let expected = ExpectedAudience.matching(audience, in: expected) else {
            // Both URLs are public (the MAC held, so the token's is one the launcher registered),
            // and naming them is what lets an operator fix a `--public-url` that differs from
            // the registered URL by a host alias, a port or the scheme.
            let presented = String(decoding: audience, as: UTF8.self)
            throw LaunchError(.wrongAudience, "the token is for the registered URL \(presented), this verifier expects \(self.expected.map(\.url.description).joined(separator: " or "))")
        }
        guard Bytes.equal(appIDBytes, UnsafeRawBufferPointer(rebasing: blob[fields.app])) else {
            throw LaunchError(.wrongApp, "the token is for another app")
        }
        if let otherQueryParameters, Self.sortedBytes(otherQueryParameters.map(\.utf8)) != expected.parameters {
            throw LaunchError(.unexpectedParameters, "the request's parameters differ from the registered URL's")
        }

        // 6. Claims: a signed body is read in place; a sealed one is opened first.
        let claims: LaunchClaims
        switch fields.mode {
        case .signed:
            claims = try TokenLayout.claims(in: UnsafeRawBufferPointer(rebasing: blob[fields.body]))
        case .sealed:
            claims = try Self.openClaims(
                UnsafeMutableRawBufferPointer(rebasing: mutableBlob[fields.body]),
                key: derived.seal,
                associatedData: UnsafeRawBufferPointer(rebasing: blob[..<fields.headerEnd])
            )
        }

        let nonce = UnsafeRawBufferPointer(rebasing: blob[fields.nonce])
        let replayID: ReplayID
        do {
            replayID = try derived.replayID(nonce: nonce)
        } catch {
            throw LaunchError(error)
        }
        // The header's texts are the configured ones the token's bytes equal (kid, app id,
        // audience): nothing the verifier already holds is copied again.
        let header = LaunchHeader(
            version: TokenLayout.version,
            mode: fields.mode,
            kid: entry.key.kid,
            issuedAt: fields.issuedAt,
            expiresAt: fields.expiresAt,
            nonce: nonce,
            appID: appID,
            audience: expected.url.description
        )
        return VerifiedLaunch(
            header: header,
            claims: claims,
            replayID: replayID,
            replayDeadline: ReplayRetention.deadline(expiresAt: fields.expiresAt),
            audience: expected.url,
            acceptedUntil: deadlineOverflow ? nil : deadline
        )
    }

    /// Opens a sealed body, `iv || ciphertext || tag`, in place and reads its claims.
    private static func openClaims(_ body: UnsafeMutableRawBufferPointer, key: AES256GCMKey, associatedData: UnsafeRawBufferPointer) throws(LaunchError) -> LaunchClaims {
        guard body.count >= AES256GCM.ivByteCount + AES256GCM.tagByteCount else {
            throw LaunchError(.invalidClaims, "the sealed body is too short")
        }
        let opened: UnsafeRawBufferPointer
        do {
            opened = try AES256GCM.openInPlace(
                UnsafeMutableRawBufferPointer(rebasing: body[AES256GCM.ivByteCount...]),
                key: key,
                iv: UnsafeRawBufferPointer(rebasing: body[..<AES256GCM.ivByteCount]),
                associatedData: associatedData
            )
        } catch {
            switch error {
            case .authenticationFailed: throw LaunchError(.invalidClaims, "the sealed claims do not decrypt")
            case .crypto(let failure): throw LaunchError(failure)
            }
        }
        return try TokenLayout.claims(in: opened)
    }
}
