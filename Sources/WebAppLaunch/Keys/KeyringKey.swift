import WebAppRegistry

/// One key of a keyring: its id, status and secret.
public struct KeyringKey: Sendable, Equatable {
    /// The key id carried in clear in every token, so the verifier can pick the key.
    public let kid: String
    /// What the key may be used for.
    public var status: KeyStatus
    /// The secret; never printed. In a launcher keyring a root secret, in an app keyring the
    /// app key derived from one.
    public let secret: KeySecret

    /// The longest key id accepted, in bytes.
    public static let maximumKeyIDLength = IdentifierSyntax.maximumLength

    /// Creates a key.
    /// - Parameters:
    ///   - kid: 1 to 64 characters of `[A-Za-z0-9._-]`.
    ///   - status: Its status.
    ///   - secret: Its secret.
    /// - Throws: ``KeyringError/Code/invalidKeyID`` for a bad kid.
    public init(kid: String, status: KeyStatus, secret: KeySecret) throws(KeyringError) {
        guard Self.isValidKeyID(kid) else {
            throw KeyringError(.invalidKeyID, "a kid must be 1 to \(Self.maximumKeyIDLength) characters of [A-Za-z0-9._-]")
        }
        self.kid = kid
        self.status = status
        self.secret = secret
    }

    /// Whether a string is acceptable as a key id.
    /// - Parameter kid: The candidate.
    /// - Returns: `true` for 1 to 64 characters of `[A-Za-z0-9._-]`.
    public static func isValidKeyID(_ kid: String) -> Bool {
        IdentifierSyntax.isValid(kid)
    }
}
