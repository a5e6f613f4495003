/// Whether a connection stays open after each answer, decided from its requests' heads as
/// RFC 9112 §9.3 says: an HTTP/1.1 request keeps it open unless it has the `close` option, an
/// HTTP/1.0 request only with `keep-alive`. The answer to the first request that does not
/// keep it open is the connection's last: it says `Connection: close`, and the connection
/// closes once it is written.
///
/// Hummingbird closes a connection only when the request's `Connection` field is exactly
/// `close`; an HTTP/1.0 client without `keep-alive` (`ab`, scripts, old proxies) or a field
/// spelled `Close` or `close, TE` kept the connection open until the idle timeout. This is
/// the one rule for every listener (``OriginFormRequestCodec``), whichever path answers.
///
/// A value with no I/O: ``OriginFormRequestCodec`` feeds it the heads it reads and the
/// answers it writes, in their order (answers go out in the order of their requests).
struct ConnectionPersistence: Sendable {
    /// Request heads read so far.
    private var requestsRead = 0
    /// Final answers whose head was written (interim 1xx answers do not count).
    private var answersStarted = 0
    /// Final answers written to their end.
    private var answersEnded = 0
    /// The number (from 1) of the first request that does not keep the connection open.
    private var lastRequest: Int?

    init() {}

    /// A request head was read.
    /// - Parameter keepsAlive: Whether it keeps the connection open (NIO's
    ///   `HTTPRequestHead.isKeepAlive`: its version and its `Connection` options).
    mutating func requestHead(keepsAlive: Bool) {
        requestsRead += 1
        if !keepsAlive, lastRequest == nil { lastRequest = requestsRead }
    }

    /// A final answer's head is about to be written.
    /// - Returns: Whether it is the connection's last answer (its head says `Connection: close`).
    mutating func answerHead() -> Bool {
        answersStarted += 1
        return answersStarted == lastRequest
    }

    /// An answer's end is about to be written.
    /// - Returns: Whether the connection closes once it is written.
    mutating func answerEnd() -> Bool {
        answersEnded += 1
        return answersEnded == lastRequest
    }
}
