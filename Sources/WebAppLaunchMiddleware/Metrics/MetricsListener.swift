/// The address of the metrics listener (`--metrics-address HOST:PORT`).
public struct MetricsListener: Sendable, Hashable, CustomStringConvertible {
    /// The address to bind; loopback by default, so metrics stay on the machine.
    public var host: String
    /// The port (0 picks a free one).
    public var port: Int

    /// The default: `127.0.0.1:9464` (Prometheus exporters' customary port range).
    public static let loopbackDefault = MetricsListener(host: "127.0.0.1", port: 9464)

    /// Creates an address.
    /// - Parameters:
    ///   - host: The address to bind.
    ///   - port: The port.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` or `[IPv6]:PORT`.
    /// - Parameter text: The command-line form.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, (0...65535).contains(port) else { return nil }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
