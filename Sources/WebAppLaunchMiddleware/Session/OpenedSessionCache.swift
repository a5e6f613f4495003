import Synchronization
import WebAppLaunch

/// The sessions whose cookies opened recently, so a browser's next requests with the same
/// cookie skip base64url decoding, AES-256-GCM and the payload's checks.
///
/// A hit needs the presented cookie to be **byte for byte** a value that opened before, for
/// the same codec (same app, same keys: a codec built for a reloaded keyring starts empty);
/// the entry is looked up by the cookie's last 22 characters, which encode its GCM tag (the
/// MAC), and compared in constant time over every byte (a remembered cookie is a live
/// credential: how long a comparison takes must not tell a prober how much of it matched).
/// Expiry is checked on every hit, as on every open. Bounded: at
/// ``limit`` entries the cache is emptied and refills from the requests that follow (a flood
/// of distinct valid cookies costs only the opens it would have cost anyway).
package final class OpenedSessionCache: Sendable {
    /// Entries kept at most.
    package let limit: Int
    // Invariant: every entry's session opened from exactly its key's text under the owning
    // codec's sealer; entries are never changed, only added or all removed.
    private let entries: Mutex<[CookieText: LaunchSession]>

    /// Creates an empty cache.
    /// - Parameter limit: Entries kept at most (at least 1).
    package init(limit: Int = 4096) {
        self.limit = max(1, limit)
        self.entries = Mutex([:])
    }

    /// The session `value` opened to before, if it is still live at `now`.
    package func session(for value: Substring, now: UInt64) -> LaunchSession? {
        let key = CookieText(value)
        guard let session = entries.withLock({ $0[key] }), now < session.expiresAt else { return nil }
        return session
    }

    /// Remembers that `value` opened to `session`.
    package func remember(_ session: LaunchSession, for value: Substring) {
        // A copy of its own: the key never keeps a larger string (a whole header) alive.
        let key = CookieText(Substring(String(value)))
        entries.withLock { entries in
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            entries[key] = session
        }
    }

    /// Entries held now (for tests of the bound).
    package var count: Int { entries.withLock { $0.count } }
}

/// A cookie value as a dictionary key: hashed by its tail (the GCM tag's characters, with the
/// process's random hash seed), equal only when every byte is, compared in constant time.
struct CookieText: Hashable, Sendable {
    /// Characters of base64url that cover the 16-byte tag at the end of a sealed value.
    static let tagCharacters = 22
    let text: Substring

    init(_ text: Substring) { self.text = text }

    func hash(into hasher: inout Hasher) {
        let utf8 = text.utf8
        for byte in utf8.suffix(Self.tagCharacters) { hasher.combine(byte) }
        hasher.combine(utf8.count)
    }

    static func == (left: CookieText, right: CookieText) -> Bool {
        // The project's one constant-time comparison (OpenSSL's CRYPTO_memcmp), as for MACs.
        // The length is not secret (every sealed cookie of an app has one of a few lengths).
        ConstantTime.equals(left.text.utf8, right.text.utf8)
    }
}
