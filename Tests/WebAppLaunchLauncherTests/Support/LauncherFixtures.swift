import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import WebAppLaunch
import WebAppLaunchLauncher
import WebAppLaunchTestSupport
import WebAppRegistry

/// Keys, apps and launcher set-ups shared by the launcher suites.
enum LauncherFixtures {
    /// The repository's development keyring (public test keys).
    static let keyring = TestKeys.development

    static let magazin = try! WebApp(
        id: "healthmagazin",
        title: "Gesundheitsmagazin",
        summary: "Articles on prevention and everyday health.",
        url: RegisteredURL("http://127.0.0.1:8080/apps/healthmagazin"),
        iconURL: URL(string: "https://cdn.example-insurer.de/icons/magazin.png"),
        category: "health"
    )
    static let bonus = try! WebApp(
        id: "bonusprogramm",
        title: "Bonusprogramm",
        url: RegisteredURL("http://127.0.0.1:8080/apps/bonusprogramm?tenant=demo")
    )
    static let registry = try! Registry(apps: [magazin, bonus])
    static let signer = try! LaunchSigner(keyring: keyring, registry: registry)

    /// Distinctive claims, so a leak into a log is found by a plain substring search.
    static let claims = TestUsers.distinctiveClaims

    static func service(
        provider: any IdentityProvider,
        cache: UserInfoCache? = nil,
        rateLimiter: SubjectRateLimiter = SubjectRateLimiter(capacity: 100, refillInterval: .seconds(1)),
        claims: ClaimMapping = ClaimMapping(),
        logger: Logger = Logger(label: "launcher-test")
    ) -> LauncherService {
        LauncherService(signer: signer, identityProvider: provider, claims: claims, cache: cache, rateLimiter: rateLimiter, logger: logger)
    }

    static func application(_ service: LauncherService) -> some ApplicationProtocol {
        Application(router: LauncherRouter.make(service: service), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// Headers for a launch request with a bearer token.
    static func launchHeaders(token: String?) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let token { headers[.authorization] = "Bearer " + token }
        return headers
    }

    static func body(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    /// The JSON object of a response body.
    static func json(_ buffer: ByteBuffer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView))) as? [String: Any] ?? [:]
    }
}

extension TestClientProtocol {
    /// `POST /v1/launches` as the app sends it: a bearer token (or none) and a JSON body.
    @discardableResult
    func postLaunch<Return>(
        token: String?,
        body: String,
        _ check: @escaping (TestResponse) async throws -> Return
    ) async throws -> Return {
        try await execute(
            uri: "/v1/launches", method: .post,
            headers: LauncherFixtures.launchHeaders(token: token),
            body: ByteBuffer(string: body),
            testCallback: check
        )
    }
}

/// An identity provider whose answer a test decides, counting how often it was asked.
final class StubIdentityProvider: IdentityProvider {
    private let answer: Result<ProviderIdentity, IdentityProviderError>
    // How many times `identity(forAccessToken:)` ran; incremented from any task.
    private let calls = Mutex(0)

    init(_ answer: Result<ProviderIdentity, IdentityProviderError>) {
        self.answer = answer
    }

    static func vouching(subject: String = "stub-user", claims: [String: String] = LauncherFixtures.claims, scopes: Set<String>? = nil, expiresAt: Date? = nil) -> StubIdentityProvider {
        StubIdentityProvider(.success(ProviderIdentity(subject: subject, claims: claims.merging(["sub": subject]) { $1 }, scopes: scopes, expiresAt: expiresAt)))
    }

    var callCount: Int { calls.withLock { $0 } }

    func identity(forAccessToken accessToken: String) async throws(IdentityProviderError) -> ProviderIdentity {
        calls.withLock { $0 += 1 }
        return try answer.get()
    }
}
