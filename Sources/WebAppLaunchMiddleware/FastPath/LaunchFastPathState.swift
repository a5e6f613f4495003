/// Which requests of one connection the event-loop launch path may answer itself, as a
/// value: ``LaunchFastPathHandler`` is its thin runner.
///
/// HTTP/1.1 answers a connection's requests in the order they came. A request passed on to
/// Hummingbird is answered whenever its task gets to it, so the fast path answers a launch
/// only while no passed request still owes its response (a pipelining client's launch behind
/// a slow request is passed on too, and answered in its turn). It holds at most one request:
/// from its head until its end, then answers it.
struct LaunchFastPathState: Sendable, Equatable {
    /// What the runner does with a request part, or after a response ended.
    enum Action: Sendable, Equatable {
        /// Hand the part on to Hummingbird.
        case pass
        /// Keep the head: this request is answered here once it ends.
        case hold
        /// Drop the part (a body of a held request).
        case drop
        /// The held request ended: answer it now.
        case answer
        /// Keep the part: a relayed answer is being written. It arrives again after
        /// ``relayEnded()`` or ``relayPassedOn()``.
        case wait
    }

    /// Requests passed on whose response has not ended.
    private(set) var owedResponses = 0
    /// Whether a held request is being read.
    private(set) var isHolding = false

    /// Whether a relayed answer is being written.
    private(set) var isRelaying = false

    /// Whether the next request may be answered here (only then is its route looked up).
    var mayAnswer: Bool { owedResponses == 0 && !isHolding && !isRelaying }

    /// A request head arrived.
    /// - Parameter answerable: Whether it is a launch the fast path can exchange.
    /// - Returns: ``Action/hold`` or ``Action/pass`` (``Action/wait`` while relaying).
    mutating func head(answerable: Bool) -> Action {
        if isRelaying { return .wait }
        if answerable && mayAnswer {
            isHolding = true
            return .hold
        }
        owedResponses += 1
        return .pass
    }

    /// A body part arrived.
    /// - Returns: ``Action/drop`` for a held request, else ``Action/pass`` (``Action/wait``
    ///   while relaying).
    func body() -> Action {
        if isRelaying { return .wait }
        return isHolding ? .drop : .pass
    }

    /// A request's end arrived.
    /// - Returns: ``Action/answer`` for a held request, else ``Action/pass`` (``Action/wait``
    ///   while relaying).
    mutating func end() -> Action {
        if isRelaying { return .wait }
        guard isHolding else { return .pass }
        isHolding = false
        return .answer
    }

    /// The answer of the request that just ended is relayed: it is written later.
    mutating func relayStarted() {
        isRelaying = true
    }

    /// The relayed answer was written to its end (or the connection closed).
    mutating func relayEnded() {
        isRelaying = false
    }

    /// The relayed request goes to Hummingbird after all: it owes its response from now on.
    mutating func relayPassedOn() {
        isRelaying = false
        owedResponses += 1
    }

    /// Hummingbird wrote the end of a response: one passed request less is owed.
    mutating func passedResponseEnded() {
        owedResponses = max(0, owedResponses - 1)
    }
}
