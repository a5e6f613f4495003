import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WebAppLaunchLauncher
import WebAppLaunchTestSupport

/// No token, name or KVNR in the launcher's logs, whatever the outcome.
@Suite("Launcher log privacy")
struct LauncherLogPrivacyTests {
    @Test("Minting, refusing and failing log the app and the code, never the token, names, KVNR or subject")
    func nothingPersonalLogged() async throws {
        let capture = LogCapture()
        let logger = capture.makeLogger()
        let token = "at-Zx9Qv7-distinctive-token-Kp2"
        let subject = "subject-Wq8-distinctive"
        let vouching = StubIdentityProvider.vouching(subject: subject)
        let services = [
            LauncherFixtures.service(provider: vouching, logger: logger),
            LauncherFixtures.service(provider: StubIdentityProvider(.failure(.invalidToken)), logger: logger),
            LauncherFixtures.service(provider: StubIdentityProvider(.failure(.unavailable(reason: "timeout"))), logger: logger),
            LauncherFixtures.service(provider: vouching, rateLimiter: SubjectRateLimiter(capacity: 1, refillInterval: .seconds(60)), logger: logger),
            LauncherFixtures.service(provider: StubIdentityProvider.vouching(subject: subject, claims: ["kvnr": "A123456780"]), logger: logger),
        ]
        for service in services {
            for _ in 0..<2 {
                try await LauncherFixtures.application(service).test(.router) { client in
                    try await client.postLaunch(token: token, body: #"{"app":"healthmagazin"}"#) { _ in }
                }
            }
        }
        let text = capture.fullText
        #expect(capture.lines("launch.minted", where: "app", is: "healthmagazin").count >= 1)
        #expect(capture.lines("launch.refused", where: "code", is: "invalid_token").count >= 1)
        #expect(capture.lines("launch.refused", where: "code", is: "provider_unavailable").count >= 1)
        #expect(capture.lines("launch.refused", where: "code", is: "rate_limited").count >= 1)
        #expect(capture.lines("launch.refused", where: "code", is: "missing_claims").count >= 1)
        for secret in [token, subject, "Jürgen-Quirin", "Großmann-Zydeck", "A123456780"] {
            #expect(!text.contains(secret), "the log holds \(secret)")
        }
    }
}
