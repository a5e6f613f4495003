/// The user a launcher mints a launch for, as the native app knows them.
///
/// Unvalidated input: ``LaunchSigner`` checks and normalises it.
public struct LaunchUser: Sendable, Hashable, CustomStringConvertible {
    /// The OAuth access token to hand to the web app.
    public var accessToken: String
    /// The first name.
    public var firstName: String
    /// The last name.
    public var lastName: String
    /// The KVNR, e.g. `A123456780`.
    public var kvnumber: String

    /// Creates a user.
    /// - Parameters:
    ///   - accessToken: The access token for the app (visible ASCII, at most 8192 bytes), or
    ///     empty when the app gets none.
    ///   - firstName: The first name.
    ///   - lastName: The last name.
    ///   - kvnumber: The KVNR.
    public init(accessToken: String, firstName: String, lastName: String, kvnumber: String) {
        self.accessToken = accessToken
        self.firstName = firstName
        self.lastName = lastName
        self.kvnumber = kvnumber
    }

    /// Never the values: this is personal data.
    public var description: String { "LaunchUser(redacted)" }
}
