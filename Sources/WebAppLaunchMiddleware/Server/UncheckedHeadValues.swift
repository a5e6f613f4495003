/// The long values of one connection's heads that ``OriginFormRequestCodec`` and
/// ``LaunchFastPathHandler`` hand each other as they are, beside the HTTP Types head they
/// belong to, instead of as `HTTPField`s.
///
/// An `HTTPField` has HTTP Types check every byte of its value. A launch carries two long
/// values whose bytes are already known to be legal in a field: its request target (about
/// 1.2 KB, which NIO's parser took only if it held no space, CR, LF or NUL) and the session's
/// `Set-Cookie` (1-2 KB, built by the exchange from base64url and fixed syntax). Checking
/// them again was about 8 % of a launch's CPU. So, in one connection's pipeline:
///
/// - the codec passes a request head on without its `path`, the target waiting here, and the
///   fast path takes it back at once: it answers from it, or restores the `path` (checked
///   then, as before) before the request goes on to Hummingbird or waits;
/// - the fast path leaves an answer's `Set-Cookie` here while it writes the answer's head,
///   and the codec writes it among that head's fields.
///
/// Used only on the connection's event loop, in the same synchronous call as the head it
/// belongs to: a value is taken by the next handler or dropped, never carried to another head.
final class UncheckedHeadValues {
    /// The target of the request head the codec passed on last, until the fast path takes it.
    private var requestTarget: String?
    /// The `Set-Cookie` value of the response head being written, and its index among the
    /// head's fields.
    private var setCookie: (value: String, index: Int)?

    init() {}

    /// Called by the codec as it passes on a head without its `path`.
    func leave(requestTarget target: String) {
        requestTarget = target
    }

    /// The target the codec left for the head just received (taken: a later head cannot
    /// find it).
    func takeRequestTarget() -> String? {
        defer { requestTarget = nil }
        return requestTarget
    }

    /// Calls `write` (which writes a response head) with `value` waiting for the codec as
    /// that head's `Set-Cookie`, at `index` among its fields; whatever `write` did, the value
    /// does not outlive the call.
    func withSetCookie(_ value: String?, at index: Int, _ write: () -> Void) {
        setCookie = value.map { ($0, index) }
        defer { setCookie = nil }
        write()
    }

    /// Called by the codec for each response head it writes: the `Set-Cookie` that goes
    /// with it, if the fast path left one.
    func takeSetCookie() -> (value: String, index: Int)? {
        defer { setCookie = nil }
        return setCookie
    }
}
