import HTTPTypes

/// The connection-specific ("hop-by-hop") fields of RFC 9110 §7.6.1, which a proxy must not
/// forward: they describe one connection, not the message.
///
/// Removed in both directions: `Connection` and every field it names, `Keep-Alive`,
/// `Proxy-Connection`, `TE`, `Trailer`, `Transfer-Encoding`, `Upgrade`, `Proxy-Authenticate`
/// and `Proxy-Authorization`. Forwarding them would let a client steer the gate's own
/// connection to the upstream (an `Upgrade` smuggled through, a `Connection: X-WebApp-Launch-…`
/// trick, or framing headers that disagree with the body the gate actually sends).
public enum HopByHopHeaders {
    /// The fixed hop-by-hop names, lower-case.
    public static let names: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer",
        "transfer-encoding", "upgrade", "proxy-authenticate", "proxy-authorization",
    ]

    /// The fields without the hop-by-hop ones, including those a `Connection` field names.
    /// - Parameter fields: Header fields of a request or response.
    /// - Returns: The end-to-end fields only.
    public static func removing(from fields: HTTPFields) -> HTTPFields {
        var named = names
        for field in fields where field.name.canonicalName == "connection" {
            for option in field.value.split(separator: ",") {
                let token = option.trimmingCharacters(in: .whitespaces).lowercased()
                if !token.isEmpty { named.insert(token) }
            }
        }
        var kept = HTTPFields()
        for field in fields where !named.contains(field.name.canonicalName) {
            kept.append(field)
        }
        return kept
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: TrimSet) -> String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }

    fileprivate enum TrimSet { case whitespaces }
}
