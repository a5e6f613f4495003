import Foundation
import WebAppLaunch

/// Turns a ``LaunchSession`` into a sealed cookie value and back.
///
/// The cookie is AES-256-GCM under a key HKDF derives for sessions from the keyring
/// (``SessionSealer``): not readable, not forgeable. A value that does not open, belongs to
/// another app, or has expired is simply no session.
struct SessionCookieCodec: Sendable {
    /// Browsers drop cookies over about 4096 bytes; stay clear of it.
    static let maximumCookieBytes = 3800

    let sealer: SessionSealer

    func seal(_ session: LaunchSession) throws -> String {
        try sealer.seal(Array(try JSONEncoder().encode(session)))
    }

    func open(_ value: Substring, appID: String, now: UInt64) -> LaunchSession? {
        guard let payload = sealer.open(value),
              let session = try? JSONDecoder().decode(LaunchSession.self, from: Data(payload)),
              session.appID == appID, now < session.expiresAt
        else { return nil }
        return session
    }
}
