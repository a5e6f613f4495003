import HTTPTypes

/// Where a browser says a request came from, judged against one origin: the one rule behind
/// login CSRF (``SessionConflict``) and the development console's request guard.
///
/// - `Sec-Fetch-Site` (Fetch Metadata), when present, must be `same-origin` or `none` (a
///   navigation the user or the native app started). `same-site` is a sibling subdomain,
///   which another party may control; `cross-site` and unknown values are foreign.
/// - `Origin`, when present, must be the expected origin. `Origin: null` (what browsers send
///   from pages with `Referrer-Policy: no-referrer`, as ours are) counts as the app's own only
///   when Fetch Metadata vouches for it.
package enum RequestSite: Equatable, Sendable {
    /// The request came from the expected origin, or from no page at all.
    case own
    /// Fetch Metadata names another site (`same-site`, `cross-site`, anything unknown).
    case crossSite
    /// `Origin` names another origin (or `null` without Fetch Metadata to vouch for it).
    case foreignOrigin

    /// Classifies a request.
    /// - Parameters:
    ///   - headers: The request's header fields.
    ///   - origin: The expected origin, lower case (`https://magazin.example`).
    /// - Returns: Where the request came from.
    package static func of(_ headers: HTTPFields, expectedOrigin origin: String) -> RequestSite {
        var vouched = false
        if let site = headers[fetchSite]?.lowercased() {
            guard site == "same-origin" || site == "none" else { return .crossSite }
            vouched = true
        }
        if let given = headers[.origin]?.lowercased(), given != origin, !(given == "null" && vouched) {
            return .foreignOrigin
        }
        return .own
    }

    private static let fetchSite = HTTPField.Name("Sec-Fetch-Site")!
}
