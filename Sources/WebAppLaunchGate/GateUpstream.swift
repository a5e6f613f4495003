import Foundation
import WebAppRegistry

/// The web app behind the gate: an `http://` or `https://` origin (scheme, host, port), with
/// no path, query, fragment or credentials.
///
/// The gate forwards each request's own path and query to it unchanged, as nginx's
/// `proxy_pass http://host:port;` does, so the public paths and the upstream's paths are the
/// same and no rewriting can go wrong.
public struct GateUpstream: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// The host name or address.
    public let host: String
    /// The port.
    public let port: Int

    /// Parses an upstream origin.
    /// - Parameter text: e.g. `http://127.0.0.1:9000`.
    /// - Throws: ``ConfigurationError`` naming what is wrong.
    public init(_ text: String) throws(ConfigurationError) {
        guard let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty
        else { throw ConfigurationError("--upstream must be an http:// or https:// origin such as http://127.0.0.1:9000") }
        guard components.user == nil, components.password == nil else {
            throw ConfigurationError("--upstream must not contain credentials")
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil else {
            throw ConfigurationError("--upstream must be an origin without path or query: requests keep their own path")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw ConfigurationError("--upstream port must be 1 to 65535")
        }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = components.port ?? (scheme == "https" ? 443 : 80)
    }

    /// The origin, for building each request's URL.
    public var description: String {
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed):\(port)"
    }
}
