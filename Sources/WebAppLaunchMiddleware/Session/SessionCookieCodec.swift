import Foundation
import WebAppLaunch

/// Turns a ``LaunchSession`` into a sealed cookie value and back.
///
/// The cookie is SPEC.md §12: the binary session payload, AES-256-GCM under the app's
/// session key (``SessionSealer``): not readable, not forgeable. A value that does not open,
/// belongs to another app, or has expired is simply no session. A value that opened is
/// remembered (``OpenedSessionCache``), so a browser's further requests with it skip the
/// decryption; its expiry is still checked every time.
struct SessionCookieCodec: Sendable {
    /// Browsers drop cookies over about 4096 bytes; stay clear of it (SPEC.md §12.3: above
    /// this, the session is sealed again without the access token).
    static let maximumCookieBytes = 3800

    let sealer: SessionSealer
    let opened = OpenedSessionCache()

    func seal(_ session: LaunchSession) throws -> String {
        try sealer.sealSession(session.payload())
    }

    func open(_ value: Substring, now: UInt64) -> LaunchSession? {
        if let session = opened.session(for: value, now: now) { return session }
        guard let session = sealer.openSession(value, now: now).map(LaunchSession.init(payload:)) else { return nil }
        opened.remember(session, for: value)
        return session
    }
}
