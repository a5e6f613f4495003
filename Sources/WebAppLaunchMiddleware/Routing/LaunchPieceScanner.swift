/// Finds a `launch` piece in a form body that arrives in chunks, without keeping the body:
/// the streaming form of ``LaunchParameters/carriesLaunch(_:)`` (the same byte rule: a piece
/// is what lies between `&`s; it is a launch piece when it starts with `launch=` or is exactly
/// `launch`).
///
/// Used where a form body is passed on without having been read whole (a form POST to the
/// app's path too large to be a launch): a launch piece anywhere in it stops the body before
/// the chunk that holds it is sent on. A value state machine: feed chunks, then ``finish()``.
public struct LaunchPieceScanner: Sendable, Hashable {
    private static let name = Array("launch".utf8)

    /// How many bytes of `launch` the current piece has matched so far; `nil` once the piece
    /// can no longer be a launch piece (until the next `&`).
    private var matched: Int? = 0
    /// Whether a launch piece was seen.
    public private(set) var found = false

    /// A scanner at the start of a body.
    public init() {}

    /// Feeds the next bytes of the body.
    /// - Parameter bytes: The next chunk.
    /// - Returns: Whether a launch piece has been seen so far.
    @discardableResult
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> Bool {
        guard !found else { return true }
        for byte in bytes {
            if byte == UInt8(ascii: "&") {
                if matched == Self.name.count { found = true; return true }
                matched = 0
                continue
            }
            guard let count = matched else { continue }
            if count == Self.name.count {
                if byte == UInt8(ascii: "=") { found = true; return true }
                matched = nil
            } else if byte == Self.name[count] {
                matched = count + 1
            } else {
                matched = nil
            }
        }
        return false
    }

    /// Ends the body: a final bare `launch` piece counts too.
    /// - Returns: Whether the body carried a launch piece.
    public mutating func finish() -> Bool {
        if matched == Self.name.count { found = true }
        return found
    }
}
