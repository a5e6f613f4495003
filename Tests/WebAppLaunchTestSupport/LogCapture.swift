import Logging
import Synchronization

/// One captured log line: its message and every metadata value, rendered as text.
public struct CapturedLog: Sendable {
    public let level: Logger.Level
    public let message: String
    public let metadata: [String: String]
    public let source: String

    /// Everything the line would print, for substring searches.
    public var text: String {
        ([message, source] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
    }
}

/// Collects every line logged at any level through the loggers it makes.
public final class LogCapture: Sendable {
    // The lines in arrival order; appended from any task, hence the mutex.
    private let lines = Mutex<[CapturedLog]>([])

    /// Creates an empty capture.
    public init() {}

    /// Adds a line (the handler calls this).
    public func append(_ line: CapturedLog) {
        lines.withLock { $0.append(line) }
    }

    /// Every line so far, in arrival order.
    public var all: [CapturedLog] { lines.withLock { $0 } }

    /// All lines as one text, one line each.
    public var fullText: String { all.map(\.text).joined(separator: "\n") }

    /// Lines with a message and a metadata value, e.g. `("launch.rejected", "code", "expired")`.
    public func lines(_ message: String, where key: String, is value: String) -> [CapturedLog] {
        all.filter { $0.message == message && $0.metadata[key] == value }
    }

    /// A logger at trace level whose every line lands here.
    public func makeLogger(label: String = "webapp-launch-test") -> Logger {
        var logger = Logger(label: label, factory: { _ in CapturingLogHandler(capture: self) })
        logger.logLevel = .trace
        return logger
    }
}

/// A `LogHandler` that hands every event, with the handler's own metadata, to a ``LogCapture``.
public struct CapturingLogHandler: LogHandler {
    /// Where the lines go.
    public let capture: LogCapture
    /// The handler's own metadata.
    public var metadata: Logger.Metadata = [:]
    /// Always trace: a capture wants everything.
    public var logLevel: Logger.Level = .trace

    /// The handler's metadata by key.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Hands the event to the capture.
    public func log(event: LogEvent) {
        var merged = metadata
        if let eventMetadata = event.metadata { merged.merge(eventMetadata) { $1 } }
        capture.append(CapturedLog(
            level: event.level,
            message: event.message.description,
            metadata: merged.mapValues { "\($0)" },
            source: event.source
        ))
    }
}
