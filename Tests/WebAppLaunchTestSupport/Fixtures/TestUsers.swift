import WebAppLaunch

/// The users the suites launch as, defined once.
public enum TestUsers {
    /// Names with umlauts and ß and a 43-byte token: the everyday launch.
    public static let jurgen = LaunchUser(
        accessToken: "at-" + String(repeating: "x", count: 40), firstName: "Jürgen", lastName: "Groß", kvnumber: "A123456780"
    )

    /// Distinctive values, so a leak into a log or a response is found by a plain substring search.
    public static let distinctive = LaunchUser(
        accessToken: "at-Qz7vK2mR9xW4pL8nHj3Tf6-fixture-access-token",
        firstName: "Jürgen-Quirin",
        lastName: "Großmann-Zydeck",
        kvnumber: "A123456780"
    )

    /// ``distinctive`` as the identity provider's claims (the launcher's default mapping).
    public static let distinctiveClaims = [
        "given_name": distinctive.firstName, "family_name": distinctive.lastName, "kvnr": distinctive.kvnumber,
    ]

    /// Names that need the gate's header encoding: umlauts, ß, an apostrophe, a hyphen, a space;
    /// a token with `/`, `+` and `=`.
    public static let headerEncoded = LaunchUser(
        accessToken: "tok-abc/123+xyz=", firstName: "Jürgen Zoë", lastName: "O'Brien-Groß", kvnumber: "A123456780"
    )

    /// A second user, for "a session of A, then a launch of B".
    public static let berta = LaunchUser(accessToken: "tok-b", firstName: "Berta", lastName: "Brandt", kvnumber: "B987654320")
}
