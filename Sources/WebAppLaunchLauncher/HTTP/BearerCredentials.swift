import HTTPTypes

/// Reads the access token from `Authorization: Bearer …` (RFC 6750 section 2.1).
enum BearerCredentials {
    /// The longest token accepted; larger ones are refused before the provider is asked.
    static let maximumTokenBytes = 4096

    /// The token, when exactly one `Authorization` field carries a well-formed bearer token.
    /// - Throws: ``LauncherError/Code/missingToken`` without one, ``LauncherError/Code/invalidToken``
    ///   for a malformed or repeated one.
    static func token(in headers: HTTPFields) throws(LauncherError) -> String {
        let values = headers[values: .authorization]
        guard let value = values.first else {
            throw LauncherError(.missingToken, "no Authorization header")
        }
        guard values.count == 1 else { throw LauncherError(.invalidToken, "more than one Authorization header") }
        let scheme = value.prefix { $0 != " " }
        guard scheme.lowercased() == "bearer" else {
            throw LauncherError(.missingToken, "the Authorization header is not Bearer")
        }
        let token = value.dropFirst(scheme.count).drop { $0 == " " }
        guard isToken68(token.utf8) else {
            throw LauncherError(.invalidToken, "the bearer token is malformed")
        }
        return String(token)
    }

    /// `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`, bounded.
    private static func isToken68(_ bytes: Substring.UTF8View) -> Bool {
        guard !bytes.isEmpty, bytes.count <= maximumTokenBytes else { return false }
        var seenPadding = false
        var characters = 0
        for byte in bytes {
            if byte == UInt8(ascii: "=") {
                seenPadding = true
                continue
            }
            guard !seenPadding else { return false }
            let isAllowed = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
            guard isAllowed else { return false }
            characters += 1
        }
        return characters > 0
    }
}
