import Foundation
import Logging
import WebAppLaunch
import WebAppRegistry

/// The launcher: mints a launch for a registered app, for the user an access token belongs
/// to, as the identity provider says.
///
/// The order is fixed: the app must be registered; the provider (through the cache, and
/// within ``ProviderRequestLimit``) must vouch for the token; the subject must be under its rate limit; the token must carry the
/// required scopes; the names and KVNR come from the provider's claims and must be valid;
/// then the signer mints. Nothing the app sends besides the token and the app id is used, so
/// an app cannot launch anyone but its own user. A provider that cannot answer stops the
/// launch (fail closed).
///
/// Logs carry the app id, the error code and a hash of the subject; never the token, the
/// names or the KVNR.
public struct LauncherService: Sendable {
    /// The signer (launcher keyring and registry).
    public let signer: LaunchSigner
    /// Who vouches for tokens.
    public let identityProvider: any IdentityProvider
    /// Where names and KVNR are read, and the scopes required.
    public let claims: ClaimMapping
    /// Short-lived provider answers; `nil` asks the provider every time.
    public let cache: UserInfoCache?
    /// Launches per subject.
    public let rateLimiter: SubjectRateLimiter
    /// Provider requests in flight at once; beyond it, 503 without asking the provider.
    public let providerLimit: ProviderRequestLimit
    /// The catalogue, encoded once.
    public let catalogue: Catalogue
    private let logger: Logger

    /// Creates a launcher.
    /// - Parameters:
    ///   - signer: A signer over the launcher keyring and the registry.
    ///   - identityProvider: The provider that confirms tokens.
    ///   - claims: The claim names and required scopes.
    ///   - cache: A cache of provider answers, or `nil`.
    ///   - rateLimiter: The per-subject limit.
    ///   - providerLimit: The bound on concurrent provider requests.
    ///   - logger: Where decisions are logged (no personal data).
    public init(
        signer: LaunchSigner,
        identityProvider: any IdentityProvider,
        claims: ClaimMapping = ClaimMapping(),
        cache: UserInfoCache? = UserInfoCache(),
        rateLimiter: SubjectRateLimiter = SubjectRateLimiter(),
        providerLimit: ProviderRequestLimit = ProviderRequestLimit(),
        logger: Logger = Logger(label: "webapp-launch.launcher")
    ) {
        self.signer = signer
        self.identityProvider = identityProvider
        self.claims = claims
        self.cache = cache
        self.rateLimiter = rateLimiter
        self.providerLimit = providerLimit
        self.catalogue = Catalogue(registry: signer.registry)
        self.logger = logger
    }

    /// Mints a launch of an app for the user an access token belongs to.
    /// - Parameters:
    ///   - appID: The registered app's id.
    ///   - accessToken: The bearer token the app presented.
    ///   - now: The current time (injectable for tests).
    /// - Returns: The launch URL and its expiry.
    /// - Throws: ``LauncherError``.
    public func launch(appID: String, accessToken: String, now: Date = Date()) async throws(LauncherError) -> MintedLaunch {
        do {
            let launch = try await mint(appID: appID, accessToken: accessToken, now: now)
            return launch
        } catch {
            logger.notice("launch.refused", metadata: ["app": .string(WebApp.isValidID(appID) ? appID : "-"), "code": .string(error.code.rawValue)])
            if error.code == .providerUnavailable {
                logger.warning("identity_provider.unavailable", metadata: ["reason": .string(error.reason)])
            }
            throw error
        }
    }

    private func mint(appID: String, accessToken: String, now: Date) async throws(LauncherError) -> MintedLaunch {
        guard signer.registry.app(id: appID) != nil else {
            throw LauncherError(.unknownApp, "no app is registered with that id")
        }
        let identity = try await identity(for: accessToken, now: now)
        let subjectReference = Self.reference(identity.subject)
        if case .limited(let seconds) = rateLimiter.admit(identity.subject, now: now) {
            throw LauncherError(.rateLimited, "subject \(subjectReference) is over its launch rate", retryAfterSeconds: seconds)
        }
        if !claims.requiredScopes.isEmpty {
            guard let scopes = identity.scopes, claims.requiredScopes.isSubset(of: scopes) else {
                throw LauncherError(.insufficientScope, "the token lacks a required scope")
            }
        }
        guard let firstName = identity.claims[claims.firstName], let lastName = identity.claims[claims.lastName],
              let kvnumber = identity.claims[claims.kvnumber]
        else {
            throw LauncherError(.missingClaims, "the provider's answer lacks a name or KVNR claim")
        }
        guard KVNR(kvnumber) != nil else {
            throw LauncherError(.invalidClaims, "the provider's KVNR claim is not a valid KVNR")
        }
        let user = LaunchUser(accessToken: accessToken, firstName: firstName, lastName: lastName, kvnumber: kvnumber)
        let url: String
        do {
            url = try signer.launchURL(for: appID, user: user, now: now)
        } catch {
            if error.code == .invalidClaims {
                throw LauncherError(.invalidClaims, "a claim cannot be carried in a launch (\(error.code))")
            }
            if error.code == .unknownApp {
                throw LauncherError(.unknownApp, "no app is registered with that id")
            }
            throw LauncherError(.mintFailed, "the signer failed (\(error.code))")
        }
        let expiresAt = Date(timeIntervalSince1970: TimeInterval(UnixSeconds.of(now) + LaunchSigner.defaultLifetime))
        logger.info("launch.minted", metadata: ["app": .string(appID), "subject_ref": .string(subjectReference)])
        return MintedLaunch(url: url, expiresAt: expiresAt)
    }

    /// The provider's identity for a token, from the cache when fresh.
    private func identity(for accessToken: String, now: Date) async throws(LauncherError) -> ProviderIdentity {
        if let cached = cache?.identity(forAccessToken: accessToken, now: now) { return cached }
        do {
            let provider = identityProvider
            let identity = try await providerLimit.withSlot(refused: IdentityProviderError.unavailable(reason: "too many identity provider requests in flight")) {
                () async throws(IdentityProviderError) -> ProviderIdentity in
                try await provider.identity(forAccessToken: accessToken)
            }
            cache?.store(identity, forAccessToken: accessToken, now: now)
            return identity
        } catch {
            switch error {
            case .invalidToken:
                throw LauncherError(.invalidToken, "the identity provider refused the token")
            case .noSubject:
                throw LauncherError(.missingClaims, "the identity provider's answer names no subject")
            case .unavailable(let reason):
                throw LauncherError(.providerUnavailable, reason)
            }
        }
    }

    /// A short hash of the subject for logs: lets an operator follow one user's requests
    /// without the log holding the identifier itself.
    static func reference(_ subject: String) -> String {
        guard let digest = try? SHA256.hash(Array(("webapp-launch subject\u{0}" + subject).utf8)) else { return "-" }
        return digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
