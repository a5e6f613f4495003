import Foundation
import Logging
import WebAppLaunch
import WebAppLaunchReload
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
/// The token the launch carries is never the app's own (which would let every partner mint
/// launches for every other app): per the app's registry entry it is none, or one the
/// provider issued for that partner through ``TokenExchanger`` (RFC 8693); an exchange that
/// fails stops the launch (503). Only ``AccessTokenForwarding/developmentPassThrough``, which
/// works with development keys only, passes the app's token on, for the development console.
///
/// Logs carry the app id, the error code and a keyed reference to the subject (HMAC under a
/// key derived from the launcher keyring: stable across instances, not reversible by
/// guessing); never the token, the names or the KVNR.
public struct LauncherService: Sendable {
    /// The signer and catalogue in use; reloaded (SIGHUP, ``ReloadableConfiguration/reload()``)
    /// with every startup check. A launch takes it once and is minted with that snapshot.
    public let minting: ReloadableConfiguration<MintingConfiguration>
    /// The signer in use now (launcher keyring and registry).
    public var signer: LaunchSigner { minting.current.signer }
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
    /// The catalogue in use now, encoded once per load.
    public var catalogue: Catalogue { minting.current.catalogue }
    /// Exchanges the app's token for a partner's; `nil` when no app's entry asks for one.
    public let tokenExchanger: (any TokenExchanger)?
    /// Whose token a launch carries.
    public let tokenForwarding: AccessTokenForwarding
    /// Briefly remembered refusals; `nil` asks the provider every time.
    public let refusedTokens: RefusedTokenCache?
    private let subjectReferences: KeyedDigest?
    private let logger: Logger
    /// Where minted and refused launches are counted, or `nil` (the HTTP edge counts its own
    /// refusals there too).
    let metrics: LauncherMetrics?

    /// Creates a launcher.
    /// - Parameters:
    ///   - signer: A signer over the launcher keyring and the registry.
    ///   - identityProvider: The provider that confirms tokens.
    ///   - claims: The claim names and required scopes.
    ///   - cache: A cache of provider answers, or `nil`.
    ///   - rateLimiter: The per-subject limit.
    ///   - providerLimit: The bound on concurrent provider requests.
    ///   - tokenExchanger: The RFC 8693 exchange for apps whose entry asks for an exchanged token.
    ///   - tokenForwarding: Whose token a launch carries (default: as each app's entry says).
    ///   - refusedTokens: The cache of refusals, or `nil`.
    ///   - logger: Where decisions are logged (no personal data).
    ///   - metrics: Where minted and refused launches are counted, or `nil`.
    public init(
        signer: LaunchSigner,
        identityProvider: any IdentityProvider,
        claims: ClaimMapping = ClaimMapping(),
        cache: UserInfoCache? = UserInfoCache(),
        rateLimiter: SubjectRateLimiter = SubjectRateLimiter(),
        providerLimit: ProviderRequestLimit = ProviderRequestLimit(),
        tokenExchanger: (any TokenExchanger)? = nil,
        tokenForwarding: AccessTokenForwarding = .asRegistered,
        refusedTokens: RefusedTokenCache? = RefusedTokenCache(),
        logger: Logger = Logger(label: "webapp-launch.launcher"),
        metrics: LauncherMetrics? = nil
    ) {
        self.init(
            minting: .fixed(MintingConfiguration(signer: signer), name: "keyring+registry"),
            identityProvider: identityProvider, claims: claims, cache: cache, rateLimiter: rateLimiter,
            providerLimit: providerLimit, tokenExchanger: tokenExchanger, tokenForwarding: tokenForwarding,
            refusedTokens: refusedTokens, logger: logger, metrics: metrics
        )
    }

    /// Creates a launcher whose signer and catalogue can be reloaded.
    /// - Parameters:
    ///   - minting: The reloadable signer and catalogue.
    ///   - identityProvider: The provider that confirms tokens.
    ///   - claims: The claim names and required scopes.
    ///   - cache: A cache of provider answers, or `nil`.
    ///   - rateLimiter: The per-subject limit.
    ///   - providerLimit: The bound on concurrent provider requests.
    ///   - tokenExchanger: The RFC 8693 exchange for apps whose entry asks for an exchanged token.
    ///   - tokenForwarding: Whose token a launch carries (default: as each app's entry says).
    ///   - refusedTokens: The cache of refusals, or `nil`.
    ///   - logger: Where decisions are logged (no personal data).
    ///   - metrics: Where minted and refused launches are counted, or `nil`.
    public init(
        minting: ReloadableConfiguration<MintingConfiguration>,
        identityProvider: any IdentityProvider,
        claims: ClaimMapping = ClaimMapping(),
        cache: UserInfoCache? = UserInfoCache(),
        rateLimiter: SubjectRateLimiter = SubjectRateLimiter(),
        providerLimit: ProviderRequestLimit = ProviderRequestLimit(),
        tokenExchanger: (any TokenExchanger)? = nil,
        tokenForwarding: AccessTokenForwarding = .asRegistered,
        refusedTokens: RefusedTokenCache? = RefusedTokenCache(),
        logger: Logger = Logger(label: "webapp-launch.launcher"),
        metrics: LauncherMetrics? = nil
    ) {
        let signer = minting.current.signer
        self.minting = minting
        self.tokenExchanger = tokenExchanger
        self.tokenForwarding = tokenForwarding
        self.refusedTokens = refusedTokens
        self.subjectReferences = (try? KeyedDigest.derived(from: signer.keyring, purpose: "launcher log subject reference"))
            ?? (try? KeyedDigest.random(purpose: "launcher log subject reference"))
        self.identityProvider = identityProvider
        self.claims = claims
        self.cache = cache
        self.rateLimiter = rateLimiter
        self.providerLimit = providerLimit
        self.logger = logger
        self.metrics = metrics
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
            metrics?.minted(app: appID)  // registered: mint refuses any other id
            return launch
        } catch {
            logger.notice("launch.refused", metadata: ["app": .string(WebApp.isValidID(appID) ? appID : "-"), "code": .string(error.code.rawValue)])
            metrics?.refused(error.code)
            if error.code == .providerUnavailable || error.code == .tokenExchangeFailed {
                logger.warning("identity_provider.unavailable", metadata: ["code": .string(error.code.rawValue), "reason": .string(error.reason)])
            }
            throw error
        }
    }

    private func mint(appID: String, accessToken: String, now: Date) async throws(LauncherError) -> MintedLaunch {
        let signer = minting.current.signer  // once: the launch is minted with the keys it began with
        guard let app = signer.registry.app(id: appID) else {
            throw LauncherError(.unknownApp, "no app is registered with that id")
        }
        let identity = try await identity(for: accessToken, now: now)
        let subjectReference = reference(identity.subject)
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
        let partnerToken = try await partnerAccessToken(for: app, appToken: accessToken, signer: signer)
        let user = LaunchUser(accessToken: partnerToken, firstName: firstName, lastName: lastName, kvnumber: kvnumber)
        let signed: SignedLaunch
        do {
            signed = try signer.launch(for: appID, user: user, now: now)
        } catch {
            if error.code == .invalidClaims {
                throw LauncherError(.invalidClaims, "a claim cannot be carried in a launch (\(error.code))")
            }
            if error.code == .unknownApp {
                throw LauncherError(.unknownApp, "no app is registered with that id")
            }
            throw LauncherError(.mintFailed, "the signer failed (\(error.code))")
        }
        logger.info("launch.minted", metadata: ["app": .string(appID), "subject_ref": .string(subjectReference)])
        // The expiry the token carries, as the signer wrote it: never recomputed here.
        return MintedLaunch(url: signed.url, expiresAt: signed.expiryDate)
    }

    /// The access token the app's launch carries: never the app's own, unless the
    /// development pass-through is on (and the keys are development keys).
    private func partnerAccessToken(for app: WebApp, appToken: String, signer: LaunchSigner) async throws(LauncherError) -> String {
        switch tokenForwarding {
        case .developmentPassThrough:
            guard signer.keyring.isDevelopment else {
                throw LauncherError(.mintFailed, "the development token pass-through needs development keys")
            }
            return appToken
        case .asRegistered:
            break
        }
        switch app.accessToken {
        case .none:
            return ""
        case .exchanged(let audience, let scopes):
            guard let tokenExchanger else {
                throw LauncherError(.tokenExchangeFailed, "the app's entry asks for an exchanged token and no token exchange is configured")
            }
            do {
                return try await providerLimit.withSlot(refused: TokenExchangeError("too many identity provider requests in flight")) {
                    () async throws(TokenExchangeError) -> String in
                    try await tokenExchanger.exchange(subjectToken: appToken, audience: audience, scopes: scopes)
                }
            } catch {
                throw LauncherError(.tokenExchangeFailed, error.reason, retryAfterSeconds: error.retryAfterSeconds)
            }
        }
    }

    /// The provider's identity for a token, from the cache when fresh.
    private func identity(for accessToken: String, now: Date) async throws(LauncherError) -> ProviderIdentity {
        if let cached = cache?.identity(forAccessToken: accessToken, now: now) { return cached }
        if refusedTokens?.isRefused(accessToken) == true {
            throw LauncherError(.invalidToken, "the identity provider refused the token moments ago")
        }
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
                refusedTokens?.remember(accessToken)
                throw LauncherError(.invalidToken, "the identity provider refused the token")
            case .noSubject:
                throw LauncherError(.missingClaims, "the identity provider's answer names no subject")
            case .unavailable(let reason):
                throw LauncherError(.providerUnavailable, reason)
            case .throttled(let reason, let seconds):
                throw LauncherError(.providerUnavailable, reason, retryAfterSeconds: seconds)
            }
        }
    }

    /// A keyed reference to the subject for logs: HMAC-SHA256 under a key derived from the
    /// launcher keyring, so an operator can follow one user's requests across instances, and
    /// nobody without the keyring can confirm a guessed identifier against the log.
    func reference(_ subject: String) -> String {
        guard let digest = try? subjectReferences?.digest(Array(subject.utf8)) else { return "-" }
        return digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
