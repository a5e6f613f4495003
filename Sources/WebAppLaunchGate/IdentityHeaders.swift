import HTTPTypes
import WebAppLaunchMiddleware

/// The identity the gate passes to the web app behind it, as request headers.
///
/// The upstream learns who the user is only from these headers, so they are the trust
/// boundary of the gate:
///
/// - Every incoming header whose name starts with `X-WebApp-Launch-` (compared folded: any
///   case, `_` read as `-`, as CGI/WSGI servers read names; every occurrence) is removed from
///   a client's request before the identity is set (replace semantics), and from the
///   upstream's response, so no one can spoof an identity (``isIdentityField(_:)``).
/// - Values are UTF-8, **percent-encoded**: every byte other than the RFC 3986 unreserved
///   characters `A–Z a–z 0–9 - . _ ~` is written as `%XX` (upper-case hex). Every header then
///   stays ASCII, whatever the name (`Jürgen` → `J%C3%BCrgen`, `O'Brien` → `O%27Brien`), and
///   the upstream decodes it with its standard URL decoder (`urllib.parse.unquote`,
///   `rawurldecode`, `decodeURIComponent`, `URLDecoder.decode` — the gate never writes `+`).
///
/// | header | value |
/// | --- | --- |
/// | `X-WebApp-Launch-Subject` | the stable identifier of the user: their KVNR |
/// | `X-WebApp-Launch-First-Name` | first name |
/// | `X-WebApp-Launch-Last-Name` | last name |
/// | `X-WebApp-Launch-KVNR` | KVNR |
/// | `X-WebApp-Launch-App` | the app id the launch was for |
/// | `X-WebApp-Launch-Access-Token` | the access token, only when the gate is told to pass it |
public enum IdentityHeaders {
    /// The prefix every identity header starts with; incoming headers with it are removed.
    public static let prefix = "x-webapp-launch-"
    /// The stable identifier of the user (their KVNR).
    public static let subject = HTTPField.Name("X-WebApp-Launch-Subject")!
    /// The user's first name.
    public static let firstName = HTTPField.Name("X-WebApp-Launch-First-Name")!
    /// The user's last name.
    public static let lastName = HTTPField.Name("X-WebApp-Launch-Last-Name")!
    /// The user's KVNR.
    public static let kvnr = HTTPField.Name("X-WebApp-Launch-KVNR")!
    /// The app the launch was for.
    public static let app = HTTPField.Name("X-WebApp-Launch-App")!
    /// The user's access token; sent only when configured, because every upstream log or
    /// error page that dumps headers would otherwise hold a bearer credential.
    public static let accessToken = HTTPField.Name("X-WebApp-Launch-Access-Token")!

    /// The identity fields for a session, values percent-encoded.
    /// - Parameters:
    ///   - session: The verified session.
    ///   - includeAccessToken: Whether to add the access token (absent when the session did
    ///     not keep it because it was too large for a cookie).
    /// - Returns: The fields, in a fixed order.
    public static func fields(for session: LaunchSession, includeAccessToken: Bool) -> HTTPFields {
        var fields = HTTPFields()
        forEach(for: session, includeAccessToken: includeAccessToken) { name, value in
            fields.append(HTTPField(name: name, value: value))
        }
        return fields
    }

    /// Hands each identity field of a session to `body`, in the order of
    /// ``fields(for:includeAccessToken:)``: the one place that decides which fields a session
    /// gives and how their values are written. The reverse proxy adds them straight to the
    /// upstream request's headers, without an `HTTPFields` in between (its values, ASCII by
    /// construction, would be validated once more per request).
    static func forEach(for session: LaunchSession, includeAccessToken: Bool, _ body: (HTTPField.Name, String) -> Void) {
        body(subject, percentEncoded(session.kvnumber))
        body(firstName, percentEncoded(session.firstName))
        body(lastName, percentEncoded(session.lastName))
        body(kvnr, percentEncoded(session.kvnumber))
        body(app, percentEncoded(session.appID))
        if includeAccessToken, let token = session.accessToken {
            body(accessToken, percentEncoded(token))
        }
    }

    /// Every identity header the gate sets, in the order of ``fields(for:includeAccessToken:)``
    /// (the nginx configuration copies and hides exactly these).
    public static let names: [HTTPField.Name] = [subject, firstName, lastName, kvnr, app, accessToken]

    /// A field name as servers that fold names compare it: lower-case, `_` read as `-`.
    ///
    /// CGI, WSGI, Rack and PHP turn `X-A-B` and `X_A_B` (any case) into one variable
    /// (`HTTP_X_A_B`), so a client's `X_WebApp_Launch_Subject` would reach such an app as the
    /// identity header itself. Every comparison of header names in the gate goes through this.
    /// - Parameter name: A field name as sent.
    /// - Returns: The folded name.
    public static func foldedName(_ name: String) -> String {
        String(decoding: name.utf8.map { folded($0) }, as: UTF8.self)
    }

    /// One byte of a name as ``foldedName(_:)`` folds it.
    static func folded(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "_"): UInt8(ascii: "-")
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte + 0x20
        default: byte
        }
    }

    /// Whether `name`, folded (``foldedName(_:)``), starts with `prefix` (already folded),
    /// without building the folded text: every field of every proxied request and response
    /// is checked, so this allocates nothing.
    static func folded(_ name: String, hasPrefix prefix: String) -> Bool {
        var bytes = name.utf8.makeIterator()
        for expected in prefix.utf8 {
            guard let byte = bytes.next(), folded(byte) == expected else { return false }
        }
        return true
    }

    /// Whether `name`, folded (``foldedName(_:)``), is `other` (already folded).
    static func folded(_ name: String, equals other: String) -> Bool {
        name.utf8.count == other.utf8.count && folded(name, hasPrefix: other)
    }

    /// Whether a field name is one of ours: starts with ``prefix`` once folded
    /// (``foldedName(_:)``: any case, `_` or `-`).
    /// - Parameter name: A field name.
    /// - Returns: `true` for `X-WebApp-Launch-…`, `x_webapp_launch_…`, `X-WebApp-Launch_KVNR`, ….
    public static func isIdentityField(_ name: HTTPField.Name) -> Bool {
        folded(name.rawName, hasPrefix: prefix)
    }

    /// Percent-encodes UTF-8 bytes, keeping only RFC 3986 unreserved characters.
    /// - Parameter value: Any string.
    /// - Returns: Pure ASCII.
    public static func percentEncoded(_ value: String) -> String {
        // Most values (a KVNR, an app id, an access token, many names) need no escape: they
        // are returned as they are, without a copy.
        guard !value.utf8.allSatisfy(isUnreserved) else { return value }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count * 3)
        for byte in value.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigit(byte >> 4))
                bytes.append(hexDigit(byte & 0x0F))
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether a byte is an RFC 3986 unreserved character: `A–Z a–z 0–9 - . _ ~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// The upper-case hex digit of a nibble (0–15).
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}
