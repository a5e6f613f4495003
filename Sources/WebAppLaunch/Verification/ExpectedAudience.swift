import WebAppRegistry

/// One registered URL a ``LaunchVerifier`` accepts as a token's audience, with what step 5
/// compares it by, computed once when the verifier is made.
///
/// A class, so that finding the audience a token names and handing it on costs one reference
/// count: as a tuple of arrays, strings and a ``RegisteredURL``, every verification copied it
/// field by field through the runtime's generic value witnesses (about 5 % of `verify`).
final class ExpectedAudience: Sendable {
    /// The canonical text's bytes (`url.description`), compared byte for byte with the
    /// token's audience field. A verified launch's header carries `url.description` itself
    /// (equal byte for byte to the token's) instead of a copy from the token.
    let bytes: [UInt8]
    /// The registered URL's query components as raw bytes, sorted bytewise. Compared as
    /// `String`s, Swift's Unicode canonical equivalence would let `unit=\u{212A}` (KELVIN
    /// SIGN) pass for `unit=K`.
    let parameters: [[UInt8]]
    /// The registered URL itself: a verified launch's ``VerifiedLaunch/audience``.
    let url: RegisteredURL

    /// - Parameter url: A registered URL the verifier serves.
    init(_ url: RegisteredURL) {
        self.bytes = Array(url.description.utf8)
        self.parameters = url.query.map { LaunchVerifier.sortedBytes($0.utf8.split(separator: UInt8(ascii: "&"))) } ?? []
        self.url = url
    }

    /// The audience of `candidates` whose bytes equal `audience`, or `nil`.
    /// - Parameters:
    ///   - audience: The token's audience field (the MAC has already held).
    ///   - candidates: The verifier's audiences.
    /// - Returns: The match, found without copying any candidate's fields.
    static func matching(_ audience: UnsafeRawBufferPointer, in candidates: [ExpectedAudience]) -> ExpectedAudience? {
        for candidate in candidates where Bytes.equal(candidate.bytes, audience) {
            return candidate
        }
        return nil
    }
}
