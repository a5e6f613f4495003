import HTTPTypes
import NIOHTTP1
import WebAppLaunchMiddleware
import WebAppRegistry

/// The header fields the gate sends upstream for a client's request: the client's end-to-end
/// fields, cleaned, plus the identity of the session.
///
/// Removed from the client's fields, in this order:
/// 1. hop-by-hop fields (``HopByHopHeaders``);
/// 2. every `X-WebApp-Launch-*` field in any spelling, `_` for `-` included
///    (``IdentityHeaders``): only the gate says who the user is;
/// 3. the forwarding fields (``forwardingPolicy``): `Host`, `X-Forwarded-*`, `Forwarded`,
///    `X-Real-IP` (names folded as for identity headers);
/// 4. every session cookie of ours, of any app (``SessionCookieFamily``), from every `Cookie`
///    field (other cookies stay): the upstream must never hold a sealed session.
///
/// Then set, replacing whatever was there: the forwarding fields from the configured public
/// URL and the identity fields from the session.
enum UpstreamRequestHeaders {
    /// `Host` (HTTPTypes keeps it as the request's authority; an HTTP/1.1 upstream needs the field).
    static let hostField = HTTPField.Name("Host")!
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!

    /// The forwarding policy, the same in both shapes (the nginx configuration the gate prints
    /// sets the same fields): a client's claims about hosts, schemes and addresses are never
    /// passed on; `Host` and `X-Forwarded-Host` are the public URL's host (and port, when not
    /// the default), `X-Forwarded-Proto` its scheme; `X-Forwarded-For`, `X-Real-IP` and
    /// `Forwarded` are not sent (the gate cannot vouch for an address).
    static let forwardingPolicy = "Host, X-Forwarded-Host and X-Forwarded-Proto from the public URL; X-Forwarded-For, X-Real-IP and Forwarded removed"

    /// Whether a client field is a forwarding field the policy replaces or removes.
    static func isForwardingField(_ name: HTTPField.Name) -> Bool {
        let raw = name.rawName
        return IdentityHeaders.folded(raw, equals: "host") || IdentityHeaders.folded(raw, hasPrefix: "x-forwarded-")
            || IdentityHeaders.folded(raw, equals: "forwarded") || IdentityHeaders.folded(raw, equals: "x-real-ip")
    }

    /// The public URL's `host[:port]`, as `Host` and `X-Forwarded-Host` carry it.
    static func publicHost(_ publicURL: RegisteredURL) -> String {
        publicURL.port.map { "\(publicURL.host):\($0)" } ?? publicURL.host
    }

    /// The fields for the upstream request, in one pass over the client's, as the upstream
    /// connection's encoder takes them.
    /// - Parameters:
    ///   - fields: The client's fields.
    ///   - session: The verified session.
    ///   - includeAccessToken: Whether the access token goes upstream.
    ///   - publicURL: The gate's public URL.
    /// - Returns: The fields to send (framing fields are set by the caller).
    static func headers(
        from fields: HTTPFields,
        session: LaunchSession,
        includeAccessToken: Bool,
        publicURL: RegisteredURL
    ) -> HTTPHeaders {
        let hopByHop = HopByHopHeaders.Filter(fields)
        var kept = HTTPHeaders()
        kept.reserveCapacity(fields.count + 10)
        for field in fields {
            if hopByHop.isHopByHop(field.name.canonicalName) || IdentityHeaders.isIdentityField(field.name) || isForwardingField(field.name) {
                continue
            }
            if field.name == .cookie {
                if let value = SessionCookieFamily.removing(from: field.value) {
                    kept.add(name: field.name.rawName, value: value)
                }
                continue
            }
            kept.add(name: field.name.rawName, value: field.value)
        }
        let host = publicHost(publicURL)
        kept.add(name: hostField.rawName, value: host)
        kept.add(name: forwardedHost.rawName, value: host)
        kept.add(name: forwardedProto.rawName, value: publicURL.scheme)
        IdentityHeaders.forEach(for: session, includeAccessToken: includeAccessToken) { name, value in
            kept.add(name: name.rawName, value: value)
        }
        return kept
    }
}
