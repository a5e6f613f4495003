/// A setting of the gate that cannot work; the CLI prints its reason as one line and exits 2.
///
/// The gate fails closed: rather than start with a half-valid configuration (an upstream
/// URL with a path it would silently drop, development keys on a public address), it refuses.
public struct GateConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in one line, without secrets.
    public let reason: String

    /// Creates an error.
    /// - Parameter reason: One line.
    public init(_ reason: String) { self.reason = reason }

    /// The reason.
    public var description: String { reason }
}
