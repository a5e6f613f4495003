/// A stable, machine-readable error code: the text programs match on, stable across releases.
///
/// Codes are made only by the module that defines them (their initialisers are internal),
/// so a caller can compare against the published constants but cannot invent a code that
/// looks like one of ours.
public protocol ErrorCode: Sendable, Hashable, CustomStringConvertible {
    /// The code's text, `snake_case`.
    var rawValue: String { get }
}

extension ErrorCode {
    /// The code's text.
    public var description: String { rawValue }
}

/// An error of this package: a stable ``ErrorCode`` for programs and a sentence for people.
///
/// Every public error type conforms, so they all print as `code: reason` and a caller can
/// handle any of them generically. The reason never contains a secret, a token or personal
/// data; the code is what may cross a trust boundary.
public protocol CodedError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The type of the error's code.
    associatedtype Code: ErrorCode
    /// What went wrong, stable across releases.
    var code: Code { get }
    /// A sentence for people.
    var reason: String { get }
}

extension CodedError {
    /// `code: reason`.
    public var description: String { "\(code): \(reason)" }
}
