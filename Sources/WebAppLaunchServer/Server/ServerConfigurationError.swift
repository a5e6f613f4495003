/// Why the server refuses to start.
public struct ServerConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One sentence naming the bad setting.
    public let reason: String

    /// Creates an error.
    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}
