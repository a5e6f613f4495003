import WebAppRegistry

/// The one rule for development keys, called by every entry point (`serve`, the middleware's
/// server, both shapes of the gate, the launcher): public keys serve loopback only.
///
/// The development keyring ships in the repository, so anyone can forge launches under it.
/// A keyring counts as development when ``Keyring/isDevelopment`` says so: its flag, any
/// published root secret, or an app key derived from one (recognised by value, so removing
/// the flag changes nothing). Such a keyring is refused for a bind address, a public URL or a
/// registry entry that is not loopback; loopback is decided from the parsed host
/// (`URLSyntax.isLoopback`: `localhost`, canonical `127.x.y.z`, `::1`), never by a text
/// prefix. Servers also check the address they actually bound (`BoundAddressGuard`), since
/// `localhost` is a name.
public enum DevelopmentKeyPolicy {
    /// Refuses development keys for anything that is not loopback.
    /// - Parameters:
    ///   - keyring: The keyring an entry point is about to use.
    ///   - bindHost: The address it binds (`--host`), or `nil` when it binds none.
    ///   - publicURLs: The URLs it serves or mints for (public URLs, registry entries).
    /// - Throws: ``ConfigurationError`` with ``ConfigurationError/Code/developmentKeys``.
    public static func check(
        _ keyring: Keyring,
        bindHost: String?,
        publicURLs: some Sequence<RegisteredURL>
    ) throws(ConfigurationError) {
        guard keyring.isDevelopment else { return }
        if let bindHost, !RegisteredURL.isLoopback(bindHost.lowercased()) {
            throw ConfigurationError(
                .developmentKeys,
                "refusing development keys (public, from the repository) on the non-loopback address \(bindHost); use a production keyring (--keyring)"
            )
        }
        for url in publicURLs where !url.isLoopback {
            throw ConfigurationError(
                .developmentKeys,
                "refusing development keys (public, from the repository) for the non-loopback URL \(url); use a production keyring (--keyring)"
            )
        }
    }

    /// Refuses development keys on a socket that did not bind a loopback address.
    /// - Parameters:
    ///   - keyring: The keyring in use.
    ///   - boundAddress: The bound IP address as the socket reports it (`127.0.0.1`, `::1`,
    ///     `::ffff:127.0.0.1`), or `nil` when unknown.
    /// - Throws: ``ConfigurationError`` with ``ConfigurationError/Code/developmentKeys``.
    public static func check(_ keyring: Keyring, boundAddress: String?) throws(ConfigurationError) {
        guard keyring.isDevelopment else { return }
        guard let boundAddress, RegisteredURL.isLoopbackIPAddress(boundAddress) else {
            throw ConfigurationError(
                .developmentKeys,
                "refusing development keys: the server bound \(boundAddress ?? "an unknown address"), which is not loopback"
            )
        }
    }
}
