/// The one implementation of the URL rules every parser of the package shares: byte bounds,
/// printable ASCII, the scheme, hosts and ports.
///
/// The registry's ``RegisteredURL``, the native side's origin parser and its deep-link
/// parser all call these, so a host that one of them refuses, every one refuses. Input is
/// judged as bytes: WebKit hands over URLs already percent-encoded and with IDN hosts in
/// punycode, so anything outside printable ASCII (spaces, control characters, Unicode
/// lookalikes) is refused rather than guessed at; browsers silently strip leading control
/// characters, which is how `"\u{1}javascript:"` slips past naive prefix checks.
package enum URLSyntax {
    /// The longest URL or deep link accepted anywhere in the package, in UTF-8 bytes.
    package static let maximumLength = 2048

    /// Why an authority failed: a fixed sentence that never contains the input.
    package struct Failure: Error, Sendable {
        /// The sentence.
        package let reason: String
    }

    /// Whether every byte is printable ASCII other than space (`0x21...0x7E`).
    package static func isPrintableASCII(_ text: some StringProtocol) -> Bool {
        text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// Splits `scheme:rest`, lower-casing the scheme.
    /// - Returns: `nil` unless the text starts with `[A-Za-z][A-Za-z0-9+.-]*:`.
    package static func splitScheme(_ text: String) -> (scheme: String, rest: Substring)? {
        guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.utf8.first, first.isASCIILetter,
              scheme.utf8.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else { return nil }
        return (scheme.lowercased(), text[text.index(after: colon)...])
    }

    /// Checks a lower-case host: a DNS name (labels of `[a-z0-9-]`), an IPv4 address in
    /// canonical dotted decimal, or a bracketed IPv6 address (SPEC.md §8.1 rules 5 and 6).
    ///
    /// A host whose last label is a number (all digits, or `0x` and hex digits) is read as
    /// an IPv4 address by browsers (the WHATWG URL standard's "ends in a number"), in
    /// whatever base its labels suggest: `127.0.0.08`, `0x7f.0.0.1`, `1.2.3` or `2130706433`
    /// reach an address that the text does not show, and `example.123` is no URL at all. So
    /// such a host must be an IPv4 address in its one canonical form, four decimal octets
    /// without leading zeros, or it is refused rather than trusted to mean what it looks like.
    /// - Parameter host: The host, already lower case.
    package static func isValidHost(_ host: some StringProtocol) -> Bool {
        let bytes = Array(host.utf8)
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        if bytes.first == UInt8(ascii: "[") {
            guard bytes.count > 2, bytes.last == UInt8(ascii: "]") else { return false }
            return bytes.dropFirst().dropLast().allSatisfy { $0.isHexDigit || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }
        }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if let last = labels.last, isNumericLabel(last) {
            return isCanonicalIPv4(labels)
        }
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && label.first != UInt8(ascii: "-") && label.last != UInt8(ascii: "-")
                && label.allSatisfy { $0.isASCIILowercaseLetter || $0.isASCIIDigit || $0 == UInt8(ascii: "-") }
        }
    }

    /// Whether a label reads as a number to a URL parser: one or more digits, or `0x`
    /// followed by hex digits (none included).
    private static func isNumericLabel(_ label: some Collection<UInt8>) -> Bool {
        if !label.isEmpty && label.allSatisfy(\.isASCIIDigit) { return true }
        return label.starts(with: "0x".utf8) && label.dropFirst(2).allSatisfy(\.isHexDigit)
    }

    /// Four decimal octets 0 to 255 without leading zeros.
    private static func isCanonicalIPv4(_ labels: [some Collection<UInt8>]) -> Bool {
        labels.count == 4 && labels.allSatisfy { octet in
            !octet.isEmpty && octet.count <= 3 && octet.allSatisfy(\.isASCIIDigit)
                && (octet.count == 1 || octet.first != UInt8(ascii: "0"))
                && octet.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } <= 255
        }
    }

    /// Splits and checks an `http`/`https` authority (no userinfo: callers refuse `@` first).
    /// - Parameters:
    ///   - authority: The text between `//` and the path.
    ///   - scheme: `http` or `https`, for the default port.
    /// - Returns: The lower-case host and the port, `nil` when it is the scheme's default.
    /// - Throws: ``Failure`` naming what is wrong.
    package static func parseAuthority(_ authority: Substring, scheme: String) throws(Failure) -> (host: String, port: Int?) {
        var hostPart = authority
        var portPart: Substring?
        if authority.utf8.first == UInt8(ascii: "[") {
            guard let close = authority.utf8.firstIndex(of: UInt8(ascii: "]")) else {
                throw Failure(reason: "an IPv6 host needs a closing `]`")
            }
            hostPart = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.utf8.first == UInt8(ascii: ":") else { throw Failure(reason: "unexpected text after the IPv6 host") }
                portPart = after.dropFirst()
            }
        } else if let colon = authority.utf8.lastIndex(of: UInt8(ascii: ":")) {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        let host = hostPart.lowercased()
        guard isValidHost(host) else {
            throw Failure(reason: "the host is not a valid DNS name or IP address")
        }
        var port: Int?
        if let portPart {
            guard !portPart.isEmpty, portPart.utf8.count <= 5, portPart.utf8.allSatisfy(\.isASCIIDigit),
                  let value = Int(portPart), (1...65535).contains(value)
            else {
                throw Failure(reason: "the port must be a number from 1 to 65535")
            }
            port = value == (scheme == "https" ? 443 : 80) ? nil : value
        }
        return (host, port)
    }

    /// Whether a lower-case host names this machine's loopback interface: `localhost`,
    /// `[::1]`/`::1`, or a canonical `127.x.y.z`.
    package static func isLoopback(_ host: some StringProtocol) -> Bool {
        if host == "localhost" || host == "[::1]" || host == "::1" { return true }
        let labels = host.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return labels.first.map { $0.elementsEqual("127".utf8) } == true
            && labels.allSatisfy { $0.allSatisfy(\.isASCIIDigit) } && isCanonicalIPv4(labels)
    }
}

extension UInt8 {
    /// `0`–`9`.
    package var isASCIIDigit: Bool { (0x30...0x39).contains(self) }
    /// `a`–`z`.
    package var isASCIILowercaseLetter: Bool { (0x61...0x7A).contains(self) }
    /// `A`–`Z` or `a`–`z`.
    package var isASCIILetter: Bool { isASCIILowercaseLetter || (0x41...0x5A).contains(self) }
    /// `0`–`9`, `A`–`F` or `a`–`f`.
    package var isHexDigit: Bool { isASCIIDigit || (0x41...0x46).contains(self) || (0x61...0x66).contains(self) }
}
