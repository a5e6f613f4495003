import Logging
import Synchronization

/// One captured log line: its message and every metadata value, rendered as text.
struct CapturedLog: Sendable {
    let level: Logger.Level
    let message: String
    let metadata: [String: String]
    let source: String

    /// Everything the line would print, for substring searches.
    var text: String {
        ([message, source] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
    }
}

/// Collects every line logged at any level through the loggers it makes.
final class LogCapture: Sendable {
    // The lines in arrival order; appended from any task, hence the mutex.
    private let lines = Mutex<[CapturedLog]>([])

    func append(_ line: CapturedLog) {
        lines.withLock { $0.append(line) }
    }

    var all: [CapturedLog] { lines.withLock { $0 } }

    /// All lines as one text, one line each.
    var fullText: String { all.map(\.text).joined(separator: "\n") }

    /// Lines with a message and a metadata value, e.g. `("launch.rejected", "code", "expired")`.
    func lines(_ message: String, where key: String, is value: String) -> [CapturedLog] {
        all.filter { $0.message == message && $0.metadata[key] == value }
    }

    func makeLogger(label: String = "webapp-launch-test") -> Logger {
        var logger = Logger(label: label, factory: { _ in CapturingLogHandler(capture: self) })
        logger.logLevel = .trace
        return logger
    }
}

/// A `LogHandler` that hands every event, with the handler's own metadata, to a ``LogCapture``.
struct CapturingLogHandler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
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
