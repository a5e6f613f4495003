import HTTPTypes

/// What `/auth` decides with (``AuthRequestEndpoint/answer(method:headers:session:logger:)``),
/// read from the request's fields in one pass: whether an identity field is among them,
/// nginx's original target and method, the content type, the app's cookies and how many
/// session cookies of ours it carries.
///
/// `/auth` runs before every request nginx serves. Looking each value up by name had
/// `HTTPFields` build its index of every field's name per request: the endpoint's share of a
/// check's samples fell from 13 % to 9 % with one pass (perf, the auth_request shape under
/// wrk, 29 Nov 2026), too little for throughput runs on this host to resolve. A value that appears in
/// several fields is joined as `HTTPFields` joins it (`, `; `; ` for cookies), so the
/// decision is the one a lookup by name gave.
struct AuthRequestFields {
    /// Whether any field is in the identity family (``IdentityHeaders/isIdentityField(_:)``);
    /// then the other values are not read (the request is refused).
    private(set) var hasIdentityField = false
    /// `X-Original-URI` (``NginxConfiguration/originalURI``).
    private(set) var originalURI: String?
    /// `X-Original-Method` (``NginxConfiguration/originalMethod``).
    private(set) var originalMethod: String?
    /// `Content-Type`.
    private(set) var contentType: String?
    /// The request's cookies without any session cookie of ours
    /// (``SessionCookieFamily/removing(from:)``), or `nil` when none is left.
    private(set) var appCookies: String?
    /// How many cookies of ``SessionCookieFamily`` the `Cookie` fields carry.
    private(set) var sessionCookies = 0

    /// Reads `fields`.
    init(_ fields: HTTPFields) {
        for field in fields {
            let name = field.name
            if IdentityHeaders.isIdentityField(name) {
                hasIdentityField = true
                return
            }
            if name == .cookie {
                let (kept, removed) = SessionCookieFamily.separating(field.value)
                sessionCookies += removed
                if let kept { Self.join(&appCookies, kept, separator: "; ") }
            } else if name == NginxConfiguration.originalURI {
                Self.join(&originalURI, field.value, separator: ", ")
            } else if name == NginxConfiguration.originalMethod {
                Self.join(&originalMethod, field.value, separator: ", ")
            } else if name == .contentType {
                Self.join(&contentType, field.value, separator: ", ")
            }
        }
    }

    private static func join(_ joined: inout String?, _ value: String, separator: String) {
        joined = joined.map { $0 + separator + value } ?? value
    }
}
