import WebAppRegistry

/// What a session cookie carries, sealed (SPEC.md §12.2): the verified user and launch, the
/// app it is for and when it ends. A fixed binary layout, so any implementation can create a
/// session another one opens:
///
/// ```
/// expires_at u64 | app_len u8 | app | kid_len u8 | kid | launch_id[16]
///   | fn_len u16 | firstname | ln_len u16 | lastname | kv_len u16 | kvnumber
///   | has_token u8 (0 or 1) | [at_len u16 | access_token]   (only when has_token = 1)
/// ```
///
/// Decoding is as strict as a launch's claims: lengths consume the bytes exactly and every
/// field obeys its rule, or there is no session.
package struct SessionPayload: Sendable, Hashable {
    /// Seconds since 1970 from which on the session is void.
    package let expiresAt: UInt64
    /// The app the session is for.
    package let appID: String
    /// The kid that signed the launch.
    package let kid: String
    /// The launch's replay id, for correlating logs.
    package let launchID: ReplayID
    /// The user's first name (NFC, SPEC.md §10).
    package let firstName: String
    /// The user's last name.
    package let lastName: String
    /// The user's KVNR.
    package let kvnumber: String
    /// The access token, or `nil` when it was left out to keep the cookie small.
    package let accessToken: String?

    /// Creates a payload, checking every field against the claim rules.
    /// - Throws: `invalid_claims` for a field a verified launch could not carry.
    package init(
        expiresAt: UInt64, appID: String, kid: String, launchID: ReplayID,
        firstName: String, lastName: String, kvnumber: String, accessToken: String?
    ) throws(LaunchError) {
        guard IdentifierSyntax.isValid(appID), IdentifierSyntax.isValid(kid),
              ClaimRules.isValidName(firstName), ClaimRules.isValidName(lastName),
              KVNR.isValid(kvnumber.utf8), accessToken.map({ ClaimRules.isValidAccessToken($0.utf8) }) ?? true
        else {
            throw LaunchError(.invalidClaims, "a session field breaks the claim rules")
        }
        self.expiresAt = expiresAt
        self.appID = appID
        self.kid = kid
        self.launchID = launchID
        self.firstName = firstName
        self.lastName = lastName
        self.kvnumber = kvnumber
        self.accessToken = accessToken
    }

    /// A session for a verified launch: what an accepted launch's cookie seals, straight from
    /// the launch (its replay id as it is, not through the hex text a `LaunchSession` keeps).
    /// - Parameters:
    ///   - launch: The verified launch.
    ///   - expiresAt: The session's end, seconds since 1970.
    ///   - includeAccessToken: Whether to keep the access token (an empty one, a launch that
    ///     carries none, is never kept).
    package init(launch: VerifiedLaunch, expiresAt: UInt64, includeAccessToken: Bool) throws(LaunchError) {
        try self.init(
            expiresAt: expiresAt, appID: launch.header.appID, kid: launch.header.kid, launchID: launch.replayID,
            firstName: launch.claims.firstName, lastName: launch.claims.lastName, kvnumber: launch.claims.kvnr.value,
            accessToken: includeAccessToken && !launch.claims.accessToken.isEmpty ? launch.claims.accessToken : nil
        )
    }

    /// The payload's bytes.
    package func encoded() -> [UInt8] {
        // Sized up front and written from the strings' own bytes: one allocation per
        // accepted launch instead of one per field and per doubling.
        let textBytes = appID.utf8.count + kid.utf8.count + firstName.utf8.count + lastName.utf8.count
            + kvnumber.utf8.count + (accessToken.map { 2 + $0.utf8.count } ?? 0)
        var writer = ByteWriter(capacity: 8 + 1 + 1 + 16 + 2 + 2 + 2 + 1 + textBytes)
        writer.append(expiresAt)
        writer.appendPrefixed8(appID.utf8)
        writer.appendPrefixed8(kid.utf8)
        writer.append(launchID.high)
        writer.append(launchID.low)
        writer.appendPrefixed16(firstName.utf8)
        writer.appendPrefixed16(lastName.utf8)
        writer.appendPrefixed16(kvnumber.utf8)
        if let accessToken {
            writer.append(UInt8(1))
            writer.appendPrefixed16(accessToken.utf8)
        } else {
            writer.append(UInt8(0))
        }
        return writer.bytes
    }

    /// Decodes payload bytes strictly.
    /// - Parameter bytes: Opened cookie bytes.
    /// - Returns: The payload, or `nil` when the bytes are not exactly one valid payload.
    package static func decode(_ bytes: [UInt8]) -> SessionPayload? {
        var reader = ByteReader(bytes[...])
        do {
            let expiresAt = try reader.readUInt64()
            let app = try reader.readPrefixed8()
            let kid = try reader.readPrefixed8()
            let launchID = try reader.read(16)
            let first = try reader.readPrefixed16()
            let last = try reader.readPrefixed16()
            let kvnumber = try reader.readPrefixed16()
            let hasToken = try reader.readByte()
            guard hasToken <= 1 else { return nil }
            let token = hasToken == 1 ? try reader.readPrefixed16() : nil
            guard reader.isAtEnd,
                  let appID = UTF8Text.decode(app), let kidText = UTF8Text.decode(kid),
                  let firstName = UTF8Text.decode(first), let lastName = UTF8Text.decode(last),
                  let kvnr = UTF8Text.decode(kvnumber), let id = ReplayID(bytes: launchID)
            else { return nil }
            let accessToken = token.map { String(decoding: $0, as: UTF8.self) }
            if let token, !ClaimRules.isValidAccessToken(token) { return nil }
            return try? SessionPayload(
                expiresAt: expiresAt, appID: appID, kid: kidText, launchID: id,
                firstName: firstName, lastName: lastName, kvnumber: kvnr, accessToken: accessToken
            )
        } catch {
            return nil
        }
    }
}
