/// A `Location` this package sends a browser to without a launch to vouch for it: a
/// configured page for visitors without a session (`--unauthenticated-redirect`), or a
/// request path echoed back after a launch exchange.
///
/// One validator for every such target, because each is an open redirect waiting to happen:
/// browsers read `//host` and `/\host` as another site, strip control characters and tabs,
/// and follow any scheme. So a target is **path-absolute on the same origin only**: it starts
/// with one `/` followed by anything but `/` or `\`, holds no `\` anywhere, and is printable
/// ASCII (percent-encoded as sent) of at most ``URLSyntax/maximumLength`` bytes. There is no
/// scheme and no host, so it cannot leave the site.
public struct RedirectTarget: Sendable, Hashable, CustomStringConvertible {
    /// The path (and query) as it goes into `Location`.
    public let path: String

    /// Checks a target.
    /// - Parameter text: The target, e.g. `/signin?from=launch`.
    /// - Throws: ``ConfigurationError`` with ``ConfigurationError/Code/invalidRedirect``.
    public init(_ text: String) throws(ConfigurationError) {
        guard Self.isSafe(text) else {
            throw ConfigurationError(
                .invalidRedirect,
                "a redirect target must be a path on the same site: one `/`, then no `/` or `\\`, printable ASCII, no scheme or host"
            )
        }
        path = text
    }

    /// Whether a text may go into `Location` as a same-site path (the rule above).
    /// - Parameter text: A candidate target, as received or configured.
    /// - Returns: `true` when it is safe to send a browser there.
    public static func isSafe(_ text: some StringProtocol) -> Bool {
        let bytes = text.utf8
        guard let first = bytes.first, first == UInt8(ascii: "/"), bytes.count <= URLSyntax.maximumLength,
              URLSyntax.isPrintableASCII(text), !bytes.contains(UInt8(ascii: "\\"))
        else { return false }
        let second = bytes.dropFirst().first
        return second != UInt8(ascii: "/")
    }

    public var description: String { path }
}
