/// The `Set-Cookie` value that hands a browser its session after a launch.
///
/// Written directly rather than through Hummingbird's `Cookie`, whose attributes live in a
/// dictionary (so their order changed from process to process) and whose text is built
/// piece by piece on every accepted launch. The attributes are always these, in this order.
enum SessionSetCookie {
    /// `name=value; Max-Age=…; Path=…; [Secure; ]HttpOnly; SameSite=Lax`.
    /// - Parameters:
    ///   - name: The cookie's name (a fixed prefix and an app id: token characters only).
    ///   - value: The sealed session (base64url: cookie-octets only).
    ///   - maxAge: Seconds the browser keeps it.
    ///   - path: Where the browser sends it (the registered URL's path, or `/` for `__Host-`).
    ///   - secure: Whether it is sent over HTTPS only.
    static func value(name: String, value: String, maxAge: Int, path: String, secure: Bool) -> String {
        let maxAgeText = String(maxAge)
        var text = ""
        text.reserveCapacity(name.utf8.count + value.utf8.count + maxAgeText.utf8.count + path.utf8.count + 56)
        text += name
        text += "="
        text += value
        text += "; Max-Age="
        text += maxAgeText
        text += "; Path="
        text += path
        if secure { text += "; Secure" }
        text += "; HttpOnly; SameSite=Lax"
        return text
    }
}
