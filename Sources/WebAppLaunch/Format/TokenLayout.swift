import WebAppRegistry

/// Reading and writing the binary token of format version 2, byte by byte as SPEC.md states:
///
/// ```
/// version u8 | mode u8 | kid_len u8 | kid | iat u64 | exp u64 | nonce[16]
///   | app_len u8 | app | aud_len u16 | aud | body_len u32 | body | mac[32]
/// ```
/// All integers are big-endian. `body` is the claims block (signed) or
/// `iv[12] || AES-256-GCM(claims) || tag[16]` (sealed). The claims block is four
/// `u16 length || bytes` fields: access token, first name, last name, KVNR.
enum TokenLayout {
    static let version: UInt8 = 2
    static let nonceByteCount = 16
    static let macByteCount = 32
    /// The longest audience: a registered URL's canonical text is at most 2048 bytes.
    static let maximumAudienceByteCount = 2048
    /// The smallest possible token: one-byte kid, app and audience, empty body.
    static let minimumByteCount = 3 + 1 + 8 + 8 + nonceByteCount + 1 + 1 + 2 + 1 + 4 + macByteCount

    /// Serialises the header (everything before `body_len`).
    static func header(_ header: LaunchHeader) -> [UInt8] {
        var writer = ByteWriter(capacity: headerByteCount(header))
        writer.append(header.version)
        writer.append(header.mode.rawValue)
        writer.appendPrefixed8(header.kid.utf8)
        writer.append(header.issuedAt)
        writer.append(header.expiresAt)
        writer.append(contentsOf: header.nonce)
        writer.appendPrefixed8(header.appID.utf8)
        writer.appendPrefixed16(header.audience.utf8)
        return writer.bytes
    }

    /// The serialised header's length.
    static func headerByteCount(_ header: LaunchHeader) -> Int {
        2 + 1 + header.kid.utf8.count + 8 + 8 + nonceByteCount + 1 + header.appID.utf8.count + 2 + header.audience.utf8.count
    }

    /// Serialises the claims block.
    static func claims(accessToken: String, firstName: String, lastName: String, kvnumber: String) -> [UInt8] {
        var writer = ByteWriter(capacity: 8 + accessToken.utf8.count + firstName.utf8.count + lastName.utf8.count + kvnumber.utf8.count)
        writer.appendPrefixed16(accessToken.utf8)
        writer.appendPrefixed16(firstName.utf8)
        writer.appendPrefixed16(lastName.utf8)
        writer.appendPrefixed16(kvnumber.utf8)
        return writer.bytes
    }

    /// The fields readable before the MAC is checked: version, mode and kid. Nothing else
    /// is interpreted until the MAC has been verified.
    struct Prefix {
        let mode: LaunchMode
        let kid: ArraySlice<UInt8>
    }

    /// Reads version, mode and kid (shape only).
    static func prefix(of blob: [UInt8]) throws(LaunchError) -> Prefix {
        guard blob.count >= minimumByteCount else { throw LaunchError(.malformed, "the token is too short") }
        guard blob[0] == version else {
            throw LaunchError(.unsupportedVersion, "the token's format version is not supported")
        }
        guard let mode = LaunchMode(rawValue: blob[1]) else {
            throw LaunchError(.unsupportedMode, "the token's mode is neither signed nor sealed")
        }
        let kidLength = Int(blob[2])
        guard kidLength >= 1, kidLength <= KeyringKey.maximumKeyIDLength, 3 + kidLength <= blob.count - macByteCount else {
            throw LaunchError(.malformed, "the token's kid length is out of range")
        }
        let kid = blob[3..<(3 + kidLength)]
        guard kid.allSatisfy(IdentifierSyntax.isIdentifierByte) else {
            throw LaunchError(.malformed, "the token's kid has invalid characters")
        }
        return Prefix(mode: mode, kid: kid)
    }

    /// The whole token, parsed after its MAC was verified (or, for inspection, without).
    struct Parsed {
        let header: LaunchHeader
        /// The header bytes (sealed mode's associated data).
        let headerBytes: ArraySlice<UInt8>
        /// The audience as it stands in the token, to compare with the registered URLs' bytes.
        let audienceBytes: ArraySlice<UInt8>
        let body: ArraySlice<UInt8>
    }

    /// Parses the structure. Lengths must consume the token exactly.
    static func parse(_ blob: [UInt8]) throws(LaunchError) -> Parsed {
        let prefix = try prefix(of: blob)
        var reader = ByteReader(blob[..<(blob.count - macByteCount)])
        do {
            _ = try reader.readByte()
            _ = try reader.readByte()
            let kid = try reader.readPrefixed8()
            let issuedAt = try reader.readUInt64()
            let expiresAt = try reader.readUInt64()
            let nonce = try reader.read(nonceByteCount)
            let app = try reader.readPrefixed8()
            let audience = try reader.readPrefixed16()
            let headerEnd = reader.position
            let body = try reader.readPrefixed32()
            guard reader.isAtEnd else { throw LaunchError(.malformed, "the token has trailing bytes") }
            // SPEC.md §11 step 5: the layout's limits hold for what the MAC covers too; an
            // audience over 2048 bytes can match no registered URL and is malformed, not
            // wrong_audience.
            guard IdentifierSyntax.isValid(bytes: app), let appID = UTF8Text.decode(app),
                  (1...maximumAudienceByteCount).contains(audience.count),
                  let audienceText = UTF8Text.decode(audience)
            else {
                throw LaunchError(.malformed, "the token's app id or audience is not valid text")
            }
            let header = LaunchHeader(
                version: version,
                mode: prefix.mode,
                kid: String(decoding: kid, as: UTF8.self),
                issuedAt: issuedAt,
                expiresAt: expiresAt,
                nonce: Array(nonce),
                appID: appID,
                audience: audienceText
            )
            return Parsed(header: header, headerBytes: blob[..<headerEnd], audienceBytes: audience, body: body)
        } catch let error as LaunchError {
            throw error
        } catch {
            throw LaunchError(.malformed, "the token's lengths do not match its size")
        }
    }

    /// Parses and validates a claims block, reading the fields in place.
    static func parseClaims(_ bytes: ArraySlice<UInt8>) throws(LaunchError) -> LaunchClaims {
        var reader = ByteReader(bytes)
        let accessToken: ArraySlice<UInt8>, first: ArraySlice<UInt8>, last: ArraySlice<UInt8>, kvnr: ArraySlice<UInt8>
        do {
            accessToken = try reader.readPrefixed16()
            first = try reader.readPrefixed16()
            last = try reader.readPrefixed16()
            kvnr = try reader.readPrefixed16()
        } catch {
            throw LaunchError(.invalidClaims, "the claims block's lengths do not match its size")
        }
        guard reader.isAtEnd else { throw LaunchError(.invalidClaims, "the claims block has trailing bytes") }
        guard ClaimRules.isValidAccessToken(accessToken) else {
            throw LaunchError(.invalidClaims, "the access token is empty, too long or not visible ASCII")
        }
        guard let firstName = UTF8Text.decode(first), ClaimRules.isValidName(firstName),
              let lastName = UTF8Text.decode(last), ClaimRules.isValidName(lastName)
        else {
            throw LaunchError(.invalidClaims, "a name is empty, too long, has control characters or is not NFC")
        }
        guard KVNR.isValid(kvnr) else {
            throw LaunchError(.invalidClaims, "the KVNR fails its syntax or check digit")
        }
        return LaunchClaims(
            accessToken: accessToken.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) },
            firstName: firstName,
            lastName: lastName,
            kvnr: KVNR(String(decoding: kvnr, as: UTF8.self))!
        )
    }
}
