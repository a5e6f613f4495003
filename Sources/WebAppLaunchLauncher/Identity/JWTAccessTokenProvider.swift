import AsyncHTTPClient
import Foundation
import JWTKit
import NIOHTTP1
import Synchronization

/// Confirms a JWT access token (RFC 9068) locally: jwt-kit checks the signature with the
/// issuer's published keys (JWKS), then the launcher checks what RFC 9068 section 4 asks and
/// that the token is the native app's, for the launcher.
///
/// In order, each failure a refused token (401) unless it says otherwise:
/// 1. The header, parsed by jwt-kit without trusting it: `typ` is `at+jwt`; `alg` is one of
///    ``allowedAlgorithms`` (asymmetric only: `none` and HMAC are never accepted, so a token
///    "signed" with the public key as an HMAC secret fails here); `kid` is present.
/// 2. The key: the key set must hold `kid`; it is fetched from `jwks_uri` when unknown, at
///    most once per `minimumRefetchInterval` (see ``JWKSRefreshState``). jwt-kit would fall
///    back to a default key for an unknown `kid`; the launcher never lets it (the collection
///    has no default, and the `kid` is checked first). A key set that cannot be fetched is
///    503.
/// 3. The signature (jwt-kit, before any claim is read).
/// 4. `iss` equals the issuer; `aud` names the launcher; `client_id` is one of the native
///    app's; `exp` is in the future and `iat` not in the future (both with ``clockSkew``);
///    `sub` is present.
///
/// The user's names and KVNR are taken from the token's claims.
public struct JWTAccessTokenProvider: IdentityProvider {
    /// The algorithms accepted in a token's header.
    public static let allowedAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"]
    /// The largest token parsed, in bytes.
    static let maximumTokenBytes = 8192

    private let issuer: String
    private let policy: NativeAppTokenPolicy
    private let keySet: JWKSKeySet
    private let clockSkew: Duration
    private let now: @Sendable () -> Date

    /// Creates a provider.
    /// - Parameters:
    ///   - issuer: The issuer exactly as it appears in `iss`.
    ///   - jwksURL: The issuer's `jwks_uri` (https, or http on loopback).
    ///   - policy: Which tokens are the native app's, for the launcher.
    ///   - httpClient: A client that does not follow redirects.
    ///   - timeout: The longest one key-set fetch may take.
    ///   - keySetLifetime: How long a fetched key set is reused.
    ///   - minimumRefetchInterval: The shortest time between two fetches (bounds the fetches
    ///     that tokens with unknown key ids can cause).
    ///   - clockSkew: Tolerance on `exp` and `iat`.
    ///   - now: The clock (injectable for tests).
    public init(
        issuer: String,
        jwksURL: URL,
        policy: NativeAppTokenPolicy,
        httpClient: HTTPClient,
        timeout: Duration = .seconds(5),
        keySetLifetime: Duration = .seconds(3600),
        minimumRefetchInterval: Duration = .seconds(30),
        clockSkew: Duration = .seconds(30),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.issuer = issuer
        self.policy = policy
        self.keySet = JWKSKeySet(
            url: jwksURL,
            http: ProviderHTTP(client: httpClient, timeout: timeout),
            state: JWKSRefreshState(lifetime: keySetLifetime, minimumRefetchInterval: minimumRefetchInterval)
        )
        self.clockSkew = clockSkew
        self.now = now
    }

    /// How many times the key set was fetched (for tests and metrics).
    public var keySetFetches: Int { keySet.fetches }

    /// Ready once the issuer's key set is loaded (fetched now if none is held, within the
    /// minimum refetch interval).
    /// - Returns: Whether a key set is held.
    public func readiness() async -> Bool {
        await keySet.isLoaded()
    }

    public func identity(forAccessToken accessToken: String) async throws(IdentityProviderError) -> ProviderIdentity {
        let bytes = Array(accessToken.utf8)
        guard bytes.count <= Self.maximumTokenBytes else { throw .invalidToken }
        let header: JWTHeader
        do {
            header = try DefaultJWTParser().parse(bytes, as: AccessTokenClaims.self).header
        } catch {
            throw .invalidToken
        }
        guard let typ = header.typ?.lowercased(), typ == "at+jwt" || typ == "application/at+jwt" else { throw .invalidToken }
        guard let alg = header.alg, Self.allowedAlgorithms.contains(alg) else { throw .invalidToken }
        guard let kid = header.kid, !kid.isEmpty else { throw .invalidToken }
        let keys = try await keySet.keys(for: kid)
        guard keys.admits(kid: kid, alg: alg) else { throw .invalidToken }
        let claims: AccessTokenClaims
        do {
            claims = try await keys.collection.verify(bytes, as: AccessTokenClaims.self)
        } catch {
            throw .invalidToken
        }
        return try identity(from: claims)
    }

    private func identity(from claims: AccessTokenClaims) throws(IdentityProviderError) -> ProviderIdentity {
        let skew = Double(clockSkew.components.seconds)
        let now = self.now().timeIntervalSince1970
        guard claims.strings["iss"] == issuer else { throw .invalidToken }
        guard !policy.audience.isEmpty, claims.audiences.contains(policy.audience) else { throw .invalidToken }
        guard policy.admits(clientID: claims.strings["client_id"]) else { throw .invalidToken }
        guard let exp = claims.numbers["exp"], now < exp + skew else { throw .invalidToken }
        guard let iat = claims.numbers["iat"], iat - skew <= now else { throw .invalidToken }
        if let nbf = claims.numbers["nbf"], nbf - skew > now { throw .invalidToken }
        guard let subject = claims.strings["sub"], !subject.isEmpty else { throw .noSubject }
        let scopes = claims.strings["scope"].map { Set($0.split(separator: " ").map(String.init)) } ?? []
        return ProviderIdentity(subject: subject, claims: claims.strings, scopes: scopes, expiresAt: Date(timeIntervalSince1970: exp))
    }
}

/// The issuer's key set, fetched and refetched as ``JWKSRefreshState`` decides.
final class JWKSKeySet: Sendable {
    /// One fetched set: jwt-kit's collection (without a default key) and each key's stated
    /// algorithm.
    struct Keys: Sendable {
        let collection: JWTKeyCollection
        let algorithms: [String: String?]

        /// Whether the set holds `kid` and the key allows `alg` (when it states one).
        func admits(kid: String, alg: String) -> Bool {
            guard let stated = algorithms[kid] else { return false }
            return stated == nil || stated == alg
        }
    }

    private let url: URL
    private let http: ProviderHTTP
    // The decisions and the fetch in flight; every read and change under the lock, the fetch
    // itself outside it.
    private let state: Mutex<(machine: JWKSRefreshState<Keys>, inFlight: Task<Void, Never>?, fetches: Int)>

    init(url: URL, http: ProviderHTTP, state: JWKSRefreshState<Keys>) {
        self.url = url
        self.http = http
        self.state = Mutex((state, nil, 0))
    }

    var fetches: Int { state.withLock { $0.fetches } }

    /// Whether a key set is held; when none is, asks for one (as a token with an unknown key
    /// id would, so at most once per minimum refetch interval).
    func isLoaded() async -> Bool {
        if state.withLock({ $0.machine.keys != nil }) { return true }
        _ = try? await keys(for: "")
        return state.withLock { $0.machine.keys != nil }
    }

    /// The keys to verify a token signed with `kid`.
    /// - Throws: ``IdentityProviderError/invalidToken`` for a key id the set does not hold
    ///   (after the refetch it may cause), ``IdentityProviderError/unavailable(reason:)`` when no
    ///   key set can be had.
    func keys(for kid: String) async throws(IdentityProviderError) -> Keys {
        // Bounded: a fetch or a wait happens at most twice per call.
        for _ in 0..<3 {
            let now = ContinuousClock.now
            // A fetch's task is created and recorded in the same critical section as the
            // decision to fetch, so a concurrent caller told to wait always finds it.
            let (decision, task): (JWKSRefreshState<Keys>.Decision, Task<Void, Never>?) = state.withLock { state in
                let decision = state.machine.decide(kid: kid, now: now)
                if case .fetch = decision {
                    let task = Task { await self.fetch() }
                    state.inFlight = task
                    return (decision, task)
                }
                return (decision, state.inFlight)
            }
            switch decision {
            case .use(let keys):
                return keys
            case .unknownKey:
                throw .invalidToken
            case .unavailable:
                throw .unavailable(reason: "the issuer's key set could not be fetched")
            case .waitForFetch, .fetch:
                await task?.value
            }
        }
        throw .unavailable(reason: "the issuer's key set could not be fetched")
    }

    private func fetch() async {
        state.withLock { $0.fetches += 1 }
        do {
            let (keys, ids) = try await load()
            state.withLock { state in
                state.machine.fetched(keys, keyIDs: ids, now: .now)
                state.inFlight = nil
            }
        } catch {
            state.withLock { state in
                state.machine.fetchFailed()
                state.inFlight = nil
            }
        }
    }

    private func load() async throws -> (Keys, Set<String>) {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        let answer = try await http.send(request)
        guard answer.status == 200, let object = answer.object else {
            throw IdentityProviderError.unavailable(reason: "jwks_uri answered \(answer.status)")
        }
        let jwks = try JSONDecoder().decode(JWKS.self, from: JSONSerialization.data(withJSONObject: object))
        let collection = JWTKeyCollection()
        var algorithms: [String: String?] = [:]
        for jwk in jwks.keys {
            guard let kid = jwk.keyIdentifier?.string, !kid.isEmpty else { continue }
            // A key jwt-kit cannot use for signatures (an encryption key, an unknown type) is skipped.
            guard (try? await collection.add(jwk: jwk, isDefault: false)) != nil else { continue }
            algorithms[kid] = jwk.algorithm?.rawValue
        }
        _ = await collection.clearDefault()
        return (Keys(collection: collection, algorithms: algorithms), Set(algorithms.keys))
    }
}
