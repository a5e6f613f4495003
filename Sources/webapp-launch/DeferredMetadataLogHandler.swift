import Logging

/// swift-log's `StreamLogHandler`, with the metadata formatted when a line is written instead
/// of every time a key is set.
///
/// `StreamLogHandler` renders its whole metadata text again on every
/// `logger[metadataKey:] = …`. Hummingbird and async-http-client set a request id on every
/// request's logger, so a service formatted text on every request that it almost never wrote
/// (issue 36: about 5 % of the gate's CPU under load at `--log-level warning`). The lines
/// written are the same: the stream handler formats them, with this handler's metadata.
struct DeferredMetadataLogHandler: LogHandler {
    /// Writes the lines; its own metadata stays empty until a line is written.
    private var stream: StreamLogHandler
    var metadata: Logger.Metadata = [:]

    init(_ stream: StreamLogHandler) {
        self.stream = stream
    }

    var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { stream.metadataProvider }
        set { stream.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var stream = self.stream
        if !metadata.isEmpty { stream.metadata = metadata }
        stream.log(event: event)
    }
}
