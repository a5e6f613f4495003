import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WebAppLaunchMiddleware
import WebAppLaunchServer
import WebAppRegistry

/// How a launch reaches the server.
enum Transport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `GET path?launch=…`
    case get
    /// `POST path` with the form body `launch=…`
    case post

    var testDescription: String { rawValue.uppercased() }
}

extension HTTPField.Name {
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}

let sessionCookieName = SessionCookieName.plain

extension TestClientProtocol {
    /// Presents a launch token at an app: GET of the launch URL's target, or POST of the
    /// form `launch=…` to the clean URL.
    func launch(_ token: String, at app: WebApp, via transport: Transport, json: Bool = false) async throws -> TestResponse {
        switch transport {
        case .get:
            let separator = app.url.query == nil ? "?" : "&"
            return try await get(Fixtures.cleanTarget(of: app) + separator + "launch=" + token, json: json)
        case .post:
            return try await postForm(Fixtures.cleanTarget(of: app), form: "launch=" + token, json: json)
        }
    }

    func get(_ uri: String, cookie: String? = nil, json: Bool = false) async throws -> TestResponse {
        try await execute(uri: uri, method: .get, headers: requestHeaders(cookie: cookie, json: json))
    }

    func postForm(_ uri: String, form: String, cookie: String? = nil, json: Bool = false) async throws -> TestResponse {
        var headers = requestHeaders(cookie: cookie, json: json)
        headers[.contentType] = "application/x-www-form-urlencoded"
        return try await execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: form))
    }

    /// Posts a console form the way the console page does: with the CSRF token the page carries.
    func postConsoleForm(_ uri: String, form: String) async throws -> TestResponse {
        let token = try await consoleCSRFToken()
        return try await postForm(uri, form: "csrf=\(token)" + (form.isEmpty ? "" : "&" + form))
    }

    /// The CSRF token in the console page's form.
    func consoleCSRFToken() async throws -> String {
        let page = String(buffer: try await get("/").body)
        let marker = #"name="csrf" value=""#
        let start = try #require(page.range(of: marker)).upperBound
        return String(page[start...].prefix { $0 != "\"" })
    }

    /// Launches and returns the session cookie's value, requiring the 303.
    func sessionCookie(for token: String, at app: WebApp) async throws -> String {
        let response = try await launch(token, at: app, via: .get)
        try #require(response.status == .seeOther)
        return try #require(response.sessionCookie?.value)
    }
}

func requestHeaders(cookie: String?, json: Bool) -> HTTPFields {
    var headers = HTTPFields()
    if let cookie { headers[.cookie] = "\(sessionCookieName)=\(cookie)" }
    if json { headers[.accept] = "application/json" }
    return headers
}

/// A parsed `Set-Cookie` header.
struct SetCookie: Sendable {
    let name: String
    let value: String
    /// Attribute names lower-cased; flags map to "".
    let attributes: [String: String]

    init?(_ header: String) {
        let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, let equals = first.firstIndex(of: "=") else { return nil }
        name = String(first[..<equals])
        value = String(first[first.index(after: equals)...])
        var attributes: [String: String] = [:]
        for part in parts.dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            attributes[pair[0].lowercased()] = pair.count > 1 ? String(pair[1]) : ""
        }
        self.attributes = attributes
    }

    func has(_ flag: String) -> Bool { attributes[flag.lowercased()] != nil }
    subscript(_ attribute: String) -> String? { attributes[attribute.lowercased()] }
}

extension TestResponse {
    var text: String { String(buffer: body) }

    /// Every `Set-Cookie` header.
    var setCookies: [String] { headers[values: .setCookie] }

    /// The session cookie set by this response, if any.
    var sessionCookie: SetCookie? {
        setCookies.compactMap(SetCookie.init).first { $0.name == sessionCookieName }
    }

    /// The body as a flat JSON object of strings, if it is one.
    var jsonObject: [String: String]? {
        try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))
    }

    /// All header values and the body, for "never contains" checks.
    var everything: String {
        headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n") + "\n" + text
    }
}
