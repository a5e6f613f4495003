import Foundation
import HTTPTypes
import Hummingbird
import WebAppLaunch
import WebAppRegistry

/// A session in a cookie and back: the cookie's names, its sealed value and its `Set-Cookie`.
///
/// The cookie is SPEC.md §12: the binary session payload, AES-256-GCM under the app's
/// session key (``SessionSealer``): not readable, not forgeable. A value that does not open,
/// belongs to another app, or has expired is simply no session. A value that opened is
/// remembered (``OpenedSessionCache``), so a browser's further requests with it skip the
/// decryption; its expiry is still checked every time.
///
/// The codec owns the cookie end to end (``SessionCookieName``), so the middleware neither
/// builds names nor repeats the size rule.
struct SessionCookieCodec: Sendable {
    /// Browsers drop cookies over about 4096 bytes; stay clear of it (SPEC.md §12.3: above
    /// this, the session is sealed again without the access token).
    static let maximumCookieBytes = 3800

    let sealer: SessionSealer
    /// The names this app's sessions arrive under (one per scheme among its audiences).
    let names: [String]
    let opened = OpenedSessionCache()

    /// - Parameters:
    ///   - sealer: Seals and opens the app's sessions.
    ///   - audiences: The app's registered URLs, for the cookie names.
    init(sealer: SessionSealer, audiences: [RegisteredURL]) {
        self.sealer = sealer
        var names: [String] = []
        for audience in audiences {
            let name = SessionCookieName.name(for: audience, appID: sealer.appID)
            if !names.contains(name) { names.append(name) }
        }
        self.names = names
    }

    /// The `Set-Cookie` value that hands a browser the session of an accepted launch: scoped
    /// to the audience the launch matched, sealed without the access token when it would
    /// otherwise be too large for browsers.
    ///
    /// A value, not an `HTTPField`: every byte of it is legal in a field by construction (the
    /// cookie name's and the attributes' fixed syntax, base64url, digits, the registry's
    /// checked path), so ``LaunchAnswer/sessionCookie`` carries it, and only a runner that
    /// needs an `HTTPField` (Hummingbird's) has HTTP Types check its 1-2 KB again.
    /// - Parameters:
    ///   - launch: The verified, claimed launch.
    ///   - expiresAt: When the session ends (Unix seconds).
    ///   - maxAge: Seconds the browser keeps the cookie.
    /// - Returns: The field's value.
    func setCookieValue(for launch: VerifiedLaunch, expiresAt: UInt64, maxAge: UInt64) throws -> String {
        var value = try sealer.sealSession(SessionPayload(launch: launch, expiresAt: expiresAt, includeAccessToken: true))
        if value.utf8.count > Self.maximumCookieBytes {
            value = try sealer.sealSession(SessionPayload(launch: launch, expiresAt: expiresAt, includeAccessToken: false))
        }
        let audience = launch.audience
        let secure = audience.scheme == "https"
        return SessionSetCookie.value(
            name: SessionCookieName.name(for: audience, appID: sealer.appID),
            value: value,
            maxAge: Int(clamping: maxAge),
            path: secure ? "/" : audience.path,
            secure: secure
        )
    }

    /// The live session a request's cookies carry for this app, if one opens.
    /// - Parameters:
    ///   - request: The request.
    ///   - now: The current time (Unix seconds).
    /// - Returns: The session, or `nil`.
    func session(of request: Request, now: UInt64) -> LaunchSession? {
        session(in: request.headers, now: now)
    }

    /// The live session a request's fields carry for this app, if one opens.
    /// - Parameters:
    ///   - headers: The request's fields.
    ///   - now: The current time (Unix seconds).
    /// - Returns: The session, or `nil`.
    func session(in headers: HTTPFields, now: UInt64) -> LaunchSession? {
        // Byte for byte, no parse of every cookie into `Cookie`s (``CookiePairs``).
        let cookies = headers.lazy.filter { $0.name == .cookie }.map(\.value)
        for name in names {
            if let value = CookiePairs.firstValue(named: name, in: cookies), let session = open(value, now: now) {
                return session
            }
        }
        return nil
    }

    private func open(_ value: Substring, now: UInt64) -> LaunchSession? {
        if let session = opened.session(for: value, now: now) { return session }
        guard let session = sealer.openSession(value, now: now).map(LaunchSession.init(payload:)) else { return nil }
        opened.remember(session, for: value)
        return session
    }
}
