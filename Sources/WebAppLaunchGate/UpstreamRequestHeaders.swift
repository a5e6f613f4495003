import HTTPTypes
import WebAppLaunchMiddleware
import WebAppRegistry

/// The header fields the gate sends upstream for a client's request: the client's end-to-end
/// fields, cleaned, plus the identity of the session.
///
/// Removed from the client's fields, in this order:
/// 1. hop-by-hop fields (``HopByHopHeaders``);
/// 2. every `X-WebApp-Launch-*` field in any spelling (``IdentityHeaders``): only the gate
///    says who the user is;
/// 3. `X-Forwarded-*` and `Forwarded`: the gate sets `X-Forwarded-Host` and
///    `X-Forwarded-Proto` from its configured public URL, never from what a client claims;
/// 4. the session cookie, from every `Cookie` field (other cookies stay): the upstream must
///    never hold the sealed session, which would let it act as the user at the gate.
enum UpstreamRequestHeaders {
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!

    /// The fields for the upstream request.
    /// - Parameters:
    ///   - fields: The client's fields.
    ///   - session: The verified session.
    ///   - includeAccessToken: Whether the access token goes upstream.
    ///   - publicURL: The gate's public URL.
    ///   - cookieName: The session cookie's name.
    /// - Returns: The fields to send.
    static func fields(
        from fields: HTTPFields,
        session: LaunchSession,
        includeAccessToken: Bool,
        publicURL: RegisteredURL,
        cookieName: String
    ) -> HTTPFields {
        var kept = HTTPFields()
        for field in IdentityHeaders.removingSpoofableFields(from: HopByHopHeaders.removing(from: fields)) {
            let name = field.name.canonicalName
            if name.hasPrefix("x-forwarded-") || name == "forwarded" { continue }
            if field.name == .cookie {
                if let value = removingCookie(named: cookieName, from: field.value) {
                    kept.append(HTTPField(name: .cookie, value: value))
                }
                continue
            }
            kept.append(field)
        }
        kept[forwardedHost] = publicURL.port.map { "\(publicURL.host):\($0)" } ?? publicURL.host
        kept[forwardedProto] = publicURL.scheme
        kept.append(contentsOf: IdentityHeaders.fields(for: session, includeAccessToken: includeAccessToken))
        return kept
    }

    /// A `Cookie` value without the pairs named `name`; `nil` when nothing is left.
    /// - Parameters:
    ///   - name: The cookie to remove (every occurrence, exact name).
    ///   - value: A `Cookie` field value (`a=1; b=2`).
    /// - Returns: The remaining pairs joined by `; `, or `nil`.
    static func removingCookie(named name: String, from value: String) -> String? {
        let pairs = value.split(separator: ";").compactMap { piece -> Substring? in
            let pair = piece.drop { $0 == " " || $0 == "\t" }
            let pairName = pair.prefix { $0 != "=" }.reversed().drop { $0 == " " || $0 == "\t" }
            if String(pairName.reversed()) == name { return nil }
            return pair.isEmpty ? nil : pair
        }
        return pairs.isEmpty ? nil : pairs.joined(separator: "; ")
    }
}
