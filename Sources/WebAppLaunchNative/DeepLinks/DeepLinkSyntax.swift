import WebAppRegistry
import Foundation

/// A custom-scheme link (`scheme://host/path?query`) split into parts under strict rules,
/// before any allowlist is consulted.
///
/// Shared by ``DeepLink`` and ``PluginLink`` so both read links the same way. Nothing is
/// normalised except the case of scheme and host: a link that needs repair is refused.
struct DeepLinkSyntax: Sendable {
    /// One `name=value` pair: the raw name and the value percent-decoded once.
    struct Parameter: Sendable, Hashable {
        let name: String
        let value: String
    }

    let scheme: String
    let host: String
    /// Empty, or starting with `/`; kept percent-encoded exactly as given.
    let path: String
    /// The query as given, without `?`, or `nil` when there is none.
    let rawQuery: String?
    let parameters: [Parameter]

    /// `scheme://host/path?query` with scheme and host in lower case.
    var canonical: String {
        var text = "\(scheme)://\(host)\(path)"
        if let rawQuery { text += "?\(rawQuery)" }
        return text
    }

    /// Characters RFC 3986 allows in a path (`pchar` and `/`), including `%` for escapes.
    private static let pathBytes: Set<UInt8> = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@%/".utf8)
    /// Characters allowed in a query: those of a path and `?`.
    private static let queryBytes: Set<UInt8> = pathBytes.union([UInt8(ascii: "?")])
    /// Characters allowed in a parameter name.
    private static let nameBytes: Set<UInt8> = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._".utf8)

    /// Splits and checks a link.
    /// - Parameter text: The link as received.
    /// - Throws: ``DeepLinkError`` for anything not strictly well formed.
    init(_ text: String) throws(DeepLinkError) {
        guard !text.isEmpty, text.utf8.count <= URLSyntax.maximumLength else {
            throw DeepLinkError(.tooLong, "a deep link must be 1 to \(URLSyntax.maximumLength) bytes")
        }
        guard URLSyntax.isPrintableASCII(text), !text.contains("\\") else {
            throw DeepLinkError(.forbiddenCharacter, "a deep link must be printable ASCII without spaces, control characters or backslashes")
        }
        guard let (scheme, rest) = URLSyntax.splitScheme(text), rest.hasPrefix("//") else {
            throw DeepLinkError(.malformed, "a deep link must start with `scheme://`")
        }
        guard !rest.contains("#") else {
            throw DeepLinkError(.fragment, "a deep link cannot carry a fragment")
        }
        let afterSlashes = rest.dropFirst(2)
        let authorityEnd = afterSlashes.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? afterSlashes.endIndex
        let authority = afterSlashes[..<authorityEnd]
        guard !authority.contains("@") else {
            throw DeepLinkError(.userinfo, "a deep link cannot carry userinfo")
        }
        guard !authority.contains(":") else {
            throw DeepLinkError(.port, "a deep link cannot carry a port")
        }
        let host = authority.lowercased()
        guard !host.hasPrefix("["), URLSyntax.isValidHost(host) else {
            throw DeepLinkError(.malformed, "a deep link needs a host of letters, digits, `-` and `.`")
        }
        let afterAuthority = afterSlashes[authorityEnd...]
        let queryStart = afterAuthority.firstIndex(of: "?")
        let path = afterAuthority[..<(queryStart ?? afterAuthority.endIndex)]
        try Self.checkPath(path)
        var rawQuery: Substring?
        if let queryStart { rawQuery = afterAuthority[afterAuthority.index(after: queryStart)...] }
        self.parameters = try rawQuery.map(Self.parseQuery) ?? []
        self.scheme = scheme
        self.host = host
        self.path = String(path)
        self.rawQuery = rawQuery.map(String.init)
    }

    private static func checkPath(_ path: Substring) throws(DeepLinkError) {
        guard path.utf8.allSatisfy(pathBytes.contains) else {
            throw DeepLinkError(.forbiddenCharacter, "a deep-link path has a character that must be percent-encoded")
        }
        let lower = path.lowercased()
        guard !lower.contains("%2e"), !lower.contains("%2f"), !lower.contains("%5c") else {
            throw DeepLinkError(.encodedDotOrSlash, "a deep-link path cannot contain an encoded dot, slash or backslash")
        }
        _ = try decodeOnce(path, part: "path")
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (offset, segment) in segments.enumerated() {
            if segment == "." || segment == ".." {
                throw DeepLinkError(.dotSegment, "a deep-link path cannot contain `.` or `..` segments")
            }
            if segment.isEmpty && offset != segments.count - 1 {
                throw DeepLinkError(.malformed, "a deep-link path cannot contain an empty segment")
            }
        }
    }

    private static func parseQuery(_ query: Substring) throws(DeepLinkError) -> [Parameter] {
        guard query.utf8.allSatisfy(queryBytes.contains) else {
            throw DeepLinkError(.forbiddenCharacter, "a deep-link query has a character that must be percent-encoded")
        }
        var parameters: [Parameter] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0]
            guard !name.isEmpty, name.utf8.allSatisfy(nameBytes.contains) else {
                throw DeepLinkError(.malformed, "every deep-link query parameter needs a name of letters, digits, `-`, `.` and `_`")
            }
            let value = parts.count == 2 ? try decodeOnce(parts[1], part: "query value") : ""
            parameters.append(Parameter(name: String(name), value: value))
        }
        return parameters
    }

    /// Percent-decodes once, refusing bad escapes, invalid UTF-8 and encoded control characters.
    private static func decodeOnce(_ text: Substring, part: String) throws(DeepLinkError) -> String {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, bytes[index + 1].isHexDigit, bytes[index + 2].isHexDigit else {
                    throw DeepLinkError(.malformed, "a deep-link \(part) has a malformed percent escape")
                }
                index += 3
            } else {
                index += 1
            }
        }
        guard let decoded = String(text).removingPercentEncoding else {
            throw DeepLinkError(.malformed, "a deep-link \(part) does not decode to UTF-8")
        }
        guard !decoded.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw DeepLinkError(.forbiddenCharacter, "a deep-link \(part) cannot encode control characters")
        }
        return decoded
    }
}
