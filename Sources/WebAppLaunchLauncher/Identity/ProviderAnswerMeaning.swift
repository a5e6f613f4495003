import Foundation
import NIOHTTP1

/// What an answer from a bearer-token-protected provider endpoint (userinfo) means, decided
/// from its status and error code alone, in one place.
///
/// Only an answer that *says* the token is bad refuses it: 401, or 400/403 carrying
/// `error="invalid_token"` (RFC 6750 section 3.1, in `WWW-Authenticate` or the JSON body).
/// Every other answer that is not a success means the launcher cannot tell, and fails closed
/// as "unavailable" (503): 408, 429 and 5xx say so outright (their `Retry-After` is passed on
/// to the app), and any other 4xx or a 3xx is the launcher's or the provider's
/// misconfiguration, never a verdict on the user's token.
enum ProviderAnswerMeaning: Equatable {
    /// A 2xx answer: read the body.
    case answered
    /// The provider refused the token.
    case refusedToken
    /// The provider could not or would not answer; retry after this many seconds, if it said.
    case unavailable(reason: String, retryAfterSeconds: Int?)

    /// The longest `Retry-After` passed on, in seconds; a longer one is clamped.
    static let maximumRetryAfterSeconds = 3600

    /// Classifies an answer.
    /// - Parameters:
    ///   - status: The HTTP status.
    ///   - headers: The response headers (`WWW-Authenticate`, `Retry-After`).
    ///   - object: The JSON body, if it was an object.
    ///   - endpoint: The endpoint's name, for the reason.
    static func of(status: Int, headers: HTTPHeaders, object: [String: Any]?, endpoint: String) -> ProviderAnswerMeaning {
        switch status {
        case 200..<300:
            return .answered
        case 401:
            return .refusedToken
        case 400, 403:
            if saysInvalidToken(headers: headers, object: object) { return .refusedToken }
            return .unavailable(reason: "\(endpoint) answered \(status) without error=\"invalid_token\"", retryAfterSeconds: nil)
        case 408, 429, 500..<600:
            return .unavailable(reason: "\(endpoint) answered \(status)", retryAfterSeconds: retryAfter(headers))
        default:
            return .unavailable(reason: "\(endpoint) answered \(status)", retryAfterSeconds: nil)
        }
    }

    /// Whether the answer carries the RFC 6750 `invalid_token` error code.
    static func saysInvalidToken(headers: HTTPHeaders, object: [String: Any]?) -> Bool {
        if object?["error"] as? String == "invalid_token" { return true }
        for challenge in headers["WWW-Authenticate"] {
            if BearerChallenge.errorCode(in: challenge) == "invalid_token" { return true }
        }
        return false
    }

    /// `Retry-After` as delta-seconds (1…``maximumRetryAfterSeconds``); an HTTP date or
    /// anything else is ignored.
    static func retryAfter(_ headers: HTTPHeaders) -> Int? {
        guard let text = headers.first(name: "Retry-After")?.trimmingCharacters(in: .whitespaces),
              !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let seconds = Int(text)
        else { return nil }
        return min(max(seconds, 1), maximumRetryAfterSeconds)
    }
}

/// Reads the `error` parameter of a `Bearer` challenge (RFC 6750 section 3), with quoted or
/// bare values; nothing else of the header is interpreted.
enum BearerChallenge {
    static func errorCode(in challenge: String) -> String? {
        let trimmed = challenge.drop { $0 == " " }
        guard trimmed.lowercased().hasPrefix("bearer") else { return nil }
        var rest = Substring(trimmed.dropFirst("bearer".count))
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "," }
            let name = rest.prefix { $0 != "=" && $0 != " " && $0 != "," }
            rest = rest.dropFirst(name.count).drop { $0 == " " }
            guard rest.first == "=" else { continue }
            rest = rest.dropFirst().drop { $0 == " " }
            let value: Substring
            if rest.first == "\"" {
                let body = rest.dropFirst()
                value = body.prefix { $0 != "\"" }
                rest = body.dropFirst(value.count).dropFirst()
            } else {
                value = rest.prefix { $0 != "," && $0 != " " }
                rest = rest.dropFirst(value.count)
            }
            if name.lowercased() == "error" { return String(value) }
        }
        return nil
    }
}
