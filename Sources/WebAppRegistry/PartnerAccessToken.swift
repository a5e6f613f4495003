/// What access token a registered app receives in its launches.
///
/// A partner must never receive the native app's own access token: that token is accepted by
/// the launcher, so any partner holding it could mint launches for every other app. What a
/// partner receives is either nothing, or a token the identity provider issued *for that
/// partner* (RFC 8693 token exchange with the partner's audience and scopes), useless at the
/// launcher and at every other partner.
///
/// In a registry file: `"accessToken": "none"` (the default when the member is absent), or
/// `"accessToken": {"exchange": {"audience": "https://api.partner.example", "scope": "a b"}}`.
public enum PartnerAccessToken: Sendable, Hashable {
    /// The launch's `access_token` claim is empty.
    case none
    /// The launcher exchanges the app's token for one with this audience and these scopes
    /// (RFC 8693), and puts that one into the launch.
    case exchanged(audience: String, scopes: [String])

    /// The longest audience accepted, in bytes.
    public static let maximumAudienceLength = 512

    /// Checks the audience and scope syntax.
    /// - Throws: ``RegistryError/Code/invalidAccessToken`` when either is malformed.
    public func validate() throws(RegistryError) {
        guard case .exchanged(let audience, let scopes) = self else { return }
        guard !audience.isEmpty, audience.utf8.count <= Self.maximumAudienceLength,
              audience.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw RegistryError(.invalidAccessToken, "an exchange audience must be 1 to \(Self.maximumAudienceLength) visible ASCII characters")
        }
        for scope in scopes {
            // RFC 6749 section 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
            guard !scope.isEmpty, scope.utf8.count <= 256,
                  scope.utf8.allSatisfy({ $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) })
            else {
                throw RegistryError(.invalidAccessToken, "an exchange scope must be a list of RFC 6749 scope tokens")
            }
        }
    }
}

extension PartnerAccessToken: Codable {
    private struct Exchange: Codable {
        let audience: String
        let scope: String?
    }

    private enum CodingKeys: String, CodingKey { case exchange }

    /// Decodes `"none"` or `{"exchange": {"audience", "scope"}}`; anything else is an error.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
            guard text == "none" else {
                throw DecodingError.dataCorruptedError(in: single, debugDescription: "accessToken must be \"none\" or {\"exchange\": …}")
            }
            self = .none
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let exchange = try container.decode(Exchange.self, forKey: .exchange)
        self = .exchanged(audience: exchange.audience, scopes: (exchange.scope ?? "").split(separator: " ").map(String.init))
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .none:
            var single = encoder.singleValueContainer()
            try single.encode("none")
        case .exchanged(let audience, let scopes):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(Exchange(audience: audience, scope: scopes.isEmpty ? nil : scopes.joined(separator: " ")), forKey: .exchange)
        }
    }
}

extension RegistryError.Code {
    /// An app's `accessToken` member is malformed: an empty or non-ASCII exchange audience, or
    /// a scope that is not an RFC 6749 scope token.
    public static let invalidAccessToken = RegistryError.Code(rawValue: "invalid_access_token")
}
