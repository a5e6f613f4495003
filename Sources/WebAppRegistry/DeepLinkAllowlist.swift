/// What deep links a registered web app may ask the native app to open.
///
/// Without an allowlist, a page could route the user anywhere inside the app. The check
/// is deliberately narrow: one scheme, a set of hosts, path prefixes and query keys.
public struct DeepLinkAllowlist: Sendable, Hashable, Codable {
    /// The deep-link scheme, lower case (for this app, `navidapro`).
    public let scheme: String
    /// Hosts (the first part after `scheme://`) the app may open, lower case.
    public let hosts: [String]
    /// Path prefixes allowed under those hosts; `["/"]` or an empty list allows every path.
    public let pathPrefixes: [String]
    /// Query parameter names the link may carry; any other name refuses the link.
    public let queryKeys: [String]

    /// Creates an allowlist.
    /// - Parameters:
    ///   - scheme: The deep-link scheme, e.g. `navidapro`.
    ///   - hosts: The allowed hosts.
    ///   - pathPrefixes: The allowed path prefixes; empty allows every path.
    ///   - queryKeys: The allowed query parameter names.
    public init(scheme: String = "navidapro", hosts: [String], pathPrefixes: [String] = [], queryKeys: [String] = []) {
        self.scheme = Self.asciiLowercased(scheme)
        self.hosts = hosts.map(Self.asciiLowercased)
        self.pathPrefixes = pathPrefixes
        self.queryKeys = queryKeys
    }

    private enum CodingKeys: String, CodingKey { case scheme, hosts, pathPrefixes, queryKeys }

    /// Decodes an allowlist, defaulting the scheme to `navidapro` and the lists to empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            scheme: try container.decodeIfPresent(String.self, forKey: .scheme) ?? "navidapro",
            hosts: try container.decode([String].self, forKey: .hosts),
            pathPrefixes: try container.decodeIfPresent([String].self, forKey: .pathPrefixes) ?? [],
            queryKeys: try container.decodeIfPresent([String].self, forKey: .queryKeys) ?? []
        )
    }

    /// Lower-cases `A`–`Z` only (SPEC.md §8.3): Unicode lower-casing would turn the Kelvin
    /// sign into `k` and let a non-ASCII scheme or host pass the ASCII checks.
    private static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    private static func isValidHost(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= 253
            && host.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }

    func validate() throws(RegistryError) {
        // A scheme starts with a letter (RFC 3986 and the deep-link parser, URLSyntax.splitScheme),
        // so an allowlist scheme that no link could carry is refused rather than kept.
        guard let first = scheme.utf8.first, first.isASCIILetter,
              scheme.utf8.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }),
              scheme != "http", scheme != "https", scheme != "javascript", scheme != "data", scheme != "file"
        else {
            throw RegistryError(.invalidAllowlist, "a deep-link scheme must be a custom scheme such as `navidapro`")
        }
        guard !hosts.isEmpty, hosts.allSatisfy(Self.isValidHost) else {
            throw RegistryError(.invalidAllowlist, "a deep-link allowlist needs hosts of [a-z0-9.-]")
        }
        guard pathPrefixes.allSatisfy({ $0.hasPrefix("/") && !$0.contains("%") && !$0.contains("..") && !$0.contains("\\") }) else {
            throw RegistryError(.invalidAllowlist, "deep-link path prefixes must start with `/` and carry no `%`, `..` or `\\`")
        }
        guard queryKeys.allSatisfy({ !$0.isEmpty && !$0.contains("=") && !$0.contains("&") && !$0.contains("%") }) else {
            throw RegistryError(.invalidAllowlist, "deep-link query keys must be non-empty and carry no `=`, `&` or `%`")
        }
    }
}
