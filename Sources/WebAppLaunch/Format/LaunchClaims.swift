/// The user's identity carried by a launch: what the web app learns about the user.
public struct LaunchClaims: Sendable, Hashable, CustomStringConvertible {
    /// The OAuth access token the web app may use to call the insurer's APIs for this user.
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
