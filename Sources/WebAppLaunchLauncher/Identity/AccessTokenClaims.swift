import Foundation
import JWTKit

/// The claims of a JWT access token (RFC 9068), as decoded after jwt-kit checked the
/// signature: every string-valued claim, every numeric one, and `aud` as a list.
///
/// jwt-kit's own claim checks take no clock, so ``verify(using:)`` does nothing and
/// ``JWTAccessTokenProvider`` checks `iss`, `aud`, `client_id`, `exp` and `iat` itself, with an
/// injected `now`.
struct AccessTokenClaims: JWTPayload {
    /// String-valued claims (`iss`, `sub`, `client_id`, `scope`, names, KVNR, …).
    var strings: [String: String] = [:]
    /// Numeric claims (`exp`, `iat`, `nbf`, …), in seconds.
    var numbers: [String: Double] = [:]
    /// `aud` as a list (RFC 7519 allows a string or an array).
    var audiences: [String] = []

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for key in container.allKeys {
            if let text = try? container.decode(String.self, forKey: key) {
                strings[key.stringValue] = text
            } else if let number = try? container.decode(Double.self, forKey: key) {
                numbers[key.stringValue] = number
            }
        }
        if let list = try? container.decode([String].self, forKey: Key(stringValue: "aud")) {
            audiences = list
        } else if let single = strings["aud"] {
            audiences = [single]
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (name, value) in strings where name != "aud" { try container.encode(value, forKey: Key(stringValue: name)) }
        for (name, value) in numbers { try container.encode(value, forKey: Key(stringValue: name)) }
        try container.encode(audiences, forKey: Key(stringValue: "aud"))
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
