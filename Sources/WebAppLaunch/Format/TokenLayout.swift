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
        writer.append(header.nonceBytes.high)  // the nonce's 16 bytes, in order
        writer.append(header.nonceBytes.low)
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
        /// The kid's offsets in the token.
        let kid: Range<Int>
    }

    /// Reads version, mode and kid (shape only).
    static func prefix(of blob: UnsafeRawBufferPointer) throws(LaunchError) -> Prefix {
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
        let kid = 3..<(3 + kidLength)
        guard IdentifierSyntax.isValid(bytes: UnsafeRawBufferPointer(rebasing: blob[kid])) else {
            throw LaunchError(.malformed, "the token's kid has invalid characters")
        }
        return Prefix(mode: mode, kid: kid)
    }

    /// Where each field of a token lies: offsets into the token's bytes, read in place.
    struct Fields {
        let mode: LaunchMode
        let kid: Range<Int>
        let issuedAt: UInt64
        let expiresAt: UInt64
        let nonce: Range<Int>
        /// A valid identifier.
        let app: Range<Int>
        /// 1 to 2048 bytes of valid UTF-8.
        let audience: Range<Int>
        /// The header is `0..<headerEnd` (sealed mode's associated data).
        let headerEnd: Int
        let body: Range<Int>
    }

    /// Reads the structure in place, after the MAC was verified (or, for inspection,
    /// without). Lengths must consume the token exactly; the app id must be an identifier
    /// and the audience valid UTF-8 of 1 to 2048 bytes.
    static func fields(of blob: UnsafeRawBufferPointer) throws(LaunchError) -> Fields {
        let prefix = try prefix(of: blob)
        var reader = RawByteReader(UnsafeRawBufferPointer(rebasing: blob[..<(blob.count - macByteCount)]))
        let issuedAt: UInt64, expiresAt: UInt64, nonce: Range<Int>, app: Range<Int>, audience: Range<Int>
        let headerEnd: Int, body: Range<Int>
        do throws(RawByteReader.OutOfBounds) {
            _ = try reader.read(prefix.kid.upperBound)  // version, mode, kid: read by `prefix`
            issuedAt = try reader.readUInt64()
            expiresAt = try reader.readUInt64()
            nonce = try reader.read(nonceByteCount)
            app = try reader.readPrefixed8()
            audience = try reader.readPrefixed16()
            headerEnd = reader.position
            body = try reader.readPrefixed32()
        } catch {
            throw LaunchError(.malformed, "the token's lengths do not match its size")
        }
        guard reader.isAtEnd else { throw LaunchError(.malformed, "the token has trailing bytes") }
        // SPEC.md §11 step 5: the layout's limits hold for what the MAC covers too; an
        // audience over 2048 bytes can match no registered URL and is malformed, not
        // wrong_audience.
        guard IdentifierSyntax.isValid(bytes: UnsafeRawBufferPointer(rebasing: blob[app])),
              (1...maximumAudienceByteCount).contains(audience.count),
              UTF8Text.isValid(UnsafeRawBufferPointer(rebasing: blob[audience]))
        else {
            throw LaunchError(.malformed, "the token's app id or audience is not valid text")
        }
        return Fields(
            mode: prefix.mode, kid: prefix.kid, issuedAt: issuedAt, expiresAt: expiresAt, nonce: nonce,
            app: app, audience: audience, headerEnd: headerEnd, body: body
        )
    }

    /// The whole token as values, for inspection and tests.
    struct Parsed {
        let header: LaunchHeader
        /// The header bytes (sealed mode's associated data).
        let headerBytes: ArraySlice<UInt8>
        let body: ArraySlice<UInt8>
    }

    /// Parses the structure into values (``fields(of:)``, then copies).
    static func parse(_ blob: [UInt8]) throws(LaunchError) -> Parsed {
        let fields = try blob.withUnsafeBytes { blob in
            Result { () throws(LaunchError) in try Self.fields(of: blob) }
        }.get()
        func text(_ range: Range<Int>) -> String { String(decoding: blob[range], as: UTF8.self) }
        let header = LaunchHeader(
            version: version,
            mode: fields.mode,
            kid: text(fields.kid),
            issuedAt: fields.issuedAt,
            expiresAt: fields.expiresAt,
            nonce: Array(blob[fields.nonce]),
            appID: text(fields.app),
            audience: text(fields.audience)
        )
        return Parsed(header: header, headerBytes: blob[..<fields.headerEnd], body: blob[fields.body])
    }

    /// Parses and validates a claims block, reading the fields in place and copying only
    /// the four values it returns.
    static func claims(in bytes: UnsafeRawBufferPointer) throws(LaunchError) -> LaunchClaims {
        var reader = RawByteReader(bytes)
        let accessToken: Range<Int>, first: Range<Int>, last: Range<Int>, kvnr: Range<Int>
        do throws(RawByteReader.OutOfBounds) {
            accessToken = try reader.readPrefixed16()
            first = try reader.readPrefixed16()
            last = try reader.readPrefixed16()
            kvnr = try reader.readPrefixed16()
        } catch {
            throw LaunchError(.invalidClaims, "the claims block's lengths do not match its size")
        }
        guard reader.isAtEnd else { throw LaunchError(.invalidClaims, "the claims block has trailing bytes") }
        func field(_ range: Range<Int>) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[range]) }
        guard ClaimRules.isValidAccessToken(field(accessToken)) else {
            throw LaunchError(.invalidClaims, "the access token is too long or not visible ASCII")
        }
        guard let firstName = UTF8Text.decode(field(first)), ClaimRules.isValidName(firstName),
              let lastName = UTF8Text.decode(field(last)), ClaimRules.isValidName(lastName)
        else {
            throw LaunchError(.invalidClaims, "a name is empty, too long, has control characters or is not NFC")
        }
        guard KVNR.isValid(field(kvnr)) else {
            throw LaunchError(.invalidClaims, "the KVNR fails its syntax or check digit")
        }
        return LaunchClaims(
            accessToken: String(decoding: field(accessToken), as: UTF8.self),
            firstName: firstName,
            lastName: lastName,
            kvnr: KVNR(validated: String(decoding: field(kvnr), as: UTF8.self))
        )
    }
}
