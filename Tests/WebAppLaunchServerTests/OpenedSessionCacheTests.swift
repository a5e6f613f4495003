import Foundation
import Testing
@_spi(Testing) import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppRegistry

/// The cache of opened session cookies (issue 36) may only ever save work: it answers for a
/// value byte for byte equal to one that opened, never past the session's expiry, and holds
/// a bounded number of entries.
@Suite("A remembered session cookie answers only for its exact bytes and only while it lives")
struct OpenedSessionCacheTests {
    /// A session of the fixture user ending at `expiresAt`.
    static func session(expiresAt: UInt64) throws -> LaunchSession {
        let verifier = try LaunchVerifier(keyring: Fixtures.keyring, app: Fixtures.magazin)
        let launch = try verifier.verify(token: Fixtures.token(for: Fixtures.magazin), now: Fixtures.now)
        return LaunchSession(launch: launch, expiresAt: expiresAt)
    }

    /// A value shaped like a sealed cookie: a body and 22 characters standing for the tag.
    static let value = Substring("AgtkZXYtMjAyNi0xMQ" + String(repeating: "b", count: 80) + "TAGtagTAGtagTAGtagTAGt")

    @Test("a remembered session is answered until its expiry and not a second longer")
    func expiry() throws {
        let cache = OpenedSessionCache()
        cache.remember(try Self.session(expiresAt: 2_000), for: Self.value)
        #expect(cache.session(for: Self.value, now: 1_999)?.kvnumber == Fixtures.user.kvnumber)
        #expect(cache.session(for: Self.value, now: 2_000) == nil)
        #expect(cache.session(for: Self.value, now: 9_999) == nil)
    }

    @Test("a value with the same tag characters but any other byte changed is not answered", arguments: [0, 5, 40, 97])
    func otherBytesSameTag(position: Int) throws {
        let cache = OpenedSessionCache()
        cache.remember(try Self.session(expiresAt: 2_000), for: Self.value)
        var bytes = Array(Self.value.utf8)
        bytes[position] = bytes[position] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let changed = Substring(decoding: bytes, as: UTF8.self)
        #expect(changed.suffix(22) == Self.value.suffix(22))
        #expect(cache.session(for: changed, now: 1_000) == nil)
        // A prefix or an extension of the value is another value too.
        #expect(cache.session(for: Self.value.dropFirst(), now: 1_000) == nil)
        #expect(cache.session(for: Substring(Self.value + "A"), now: 1_000) == nil)
        #expect(cache.session(for: Self.value, now: 1_000) != nil)
        // The same bytes as a slice of a whole `Cookie` field, as a request presents them.
        let field = "theme=dark; webapp_launch_session=" + String(Self.value) + "; lang=de"
        let start = field.index(field.startIndex, offsetBy: 34)
        let slice = field[start..<field.index(start, offsetBy: Self.value.count)]
        #expect(slice == Self.value)
        #expect(cache.session(for: slice, now: 1_000) != nil)
        #expect(cache.session(for: field[start...].dropLast(9).dropLast(), now: 1_000) == nil)
    }

    @Test("the cache never holds more than its limit")
    func bounded() throws {
        let cache = OpenedSessionCache(limit: 4)
        let session = try Self.session(expiresAt: 2_000)
        for index in 0..<50 {
            cache.remember(session, for: Substring("value-\(index)-" + String(repeating: "t", count: 22)))
            #expect(cache.count <= 4)
        }
        #expect(cache.count >= 1)
    }
}
