/// The user's identity carried by a launch: what the web app learns about the user.
public struct LaunchClaims: Sendable, Hashable, CustomStringConvertible {
    /// The OAuth access token issued for this web app (its audience, its scopes), which it may
    /// use to call the insurer's APIs for this user; empty when its registry entry asks for
    /// none. Never the native app's own token (SPEC.md section 4).
    public let accessToken: String
    /// The user's first name, NFC-normalised.
    public let firstName: String
    /// The user's last name, NFC-normalised.
    public let lastName: String
    /// The user's health-insurance number, syntax and check digit valid.
    public let kvnr: KVNR

    /// Creates claims from already validated parts.
    init(accessToken: String, firstName: String, lastName: String, kvnr: KVNR) {
        self.accessToken = accessToken
        self.firstName = firstName
        self.lastName = lastName
        self.kvnr = kvnr
    }

    /// Never the values: claims are personal data and must not reach logs by accident.
    public var description: String { "LaunchClaims(redacted)" }
}
