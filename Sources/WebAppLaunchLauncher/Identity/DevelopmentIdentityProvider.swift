import Foundation
import WebAppLaunch

/// The development identity provider: vouches for a fixed set of demo access tokens, in
/// process, for the development console and local experiments.
///
/// It stands where the insurer's identity provider stands in production, so a demo launch
/// takes the app's path through ``LauncherService``: the console presents a demo user's
/// access token, and the names and KVNR come from this provider's claims, never from the
/// console's form. Tokens are looked up by their SHA-256, so the table holds no token and a
/// lookup compares no token bytes directly. Never use it with production keys: anyone who
/// knows a demo token (they are in the repository) is that user.
public struct DevelopmentIdentityProvider: IdentityProvider {
    private let identities: [Data: ProviderIdentity]

    /// Creates a provider.
    /// - Parameter identities: Each demo access token with the identity it stands for.
    public init(identities: [(accessToken: String, identity: ProviderIdentity)]) {
        var table: [Data: ProviderIdentity] = [:]
        for entry in identities {
            if let key = try? SHA256.hash(Array(entry.accessToken.utf8)) { table[Data(key)] = entry.identity }
        }
        self.identities = table
    }

    public func identity(forAccessToken accessToken: String) async throws(IdentityProviderError) -> ProviderIdentity {
        guard let key = try? SHA256.hash(Array(accessToken.utf8)) else {
            throw .unavailable(reason: "SHA-256 failed")
        }
        guard let identity = identities[Data(key)] else { throw .invalidToken }
        return identity
    }
}
