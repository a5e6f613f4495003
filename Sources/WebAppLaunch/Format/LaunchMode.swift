/// Whether a token's claims travel encrypted or only authenticated.
public enum LaunchMode: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Claims authenticated by the MAC but readable by anyone holding the URL (after base64url
    /// decoding). For debugging and for integrators who need to read them.
    case signed = 1
    /// Claims encrypted with AES-256-GCM, then authenticated by the MAC: names, access token
    /// and KVNR never sit readable in a URL, a log or a browser history. The default.
    case sealed = 2

    public var description: String {
        switch self {
        case .signed: "signed"
        case .sealed: "sealed"
        }
    }

    /// Parses `signed` or `sealed`.
    /// - Parameter name: The mode's name.
    public init?(name: String) {
        switch name {
        case "signed": self = .signed
        case "sealed": self = .sealed
        default: return nil
        }
    }
}
