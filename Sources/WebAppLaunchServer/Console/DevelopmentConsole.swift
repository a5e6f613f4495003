import Foundation
import Hummingbird
import Logging
import Mustache
import NIOCore
import WebAppLaunch
import WebAppLaunchNative
import WebAppRegistry

/// The launcher console: the native app's side of the handshake, simulated in a browser.
///
/// `GET /` lists the registered apps as cards with a choice of demo users; "Open" mints the
/// launch on the server with ``LaunchSigner`` (the key never reaches the browser) and
/// redirects to the launch URL, as the app's WebApp plugin does. A plugin deep link
/// (`navidapro://plugin/webapp?registeredURL=…`) can be pasted and is resolved with
/// ``PluginLink``. `GET /console/navigation` tells the page's bridge fallback what
/// ``NavigationPolicy`` would decide for a link.
///
/// These routes exist only with a development keyring on a loopback address
/// (``isPermitted(keyring:host:)``); otherwise they are never registered and answer 404.
public struct DevelopmentConsole: Sendable {
    let signer: LaunchSigner
    let registry: Registry
    let users: [DemoUser]
    let clock: @Sendable () -> Date
    private let template: MustacheTemplate

    /// Whether a console may exist for these keys on this address: only development keys
    /// (public anyway) on loopback, so no deployed server can mint launches for anyone.
    /// - Parameters:
    ///   - keyring: The server's keyring.
    ///   - host: The bind address.
    /// - Returns: `true` only for a development launcher keyring on a loopback host (an app
    ///   keyring cannot mint).
    public static func isPermitted(keyring: Keyring, host: String) -> Bool {
        keyring.isDevelopment && keyring.appID == nil && RegisteredURL.isLoopback(host.lowercased())
    }

    /// Creates the console.
    /// - Parameters:
    ///   - keyring: The development keyring.
    ///   - registry: The apps shown as cards (as served: rebased to the server's port).
    ///   - users: The demo users.
    ///   - clock: The issue time of minted launches (the server's clock).
    /// - Throws: ``KeyringError/Code/notLauncherKeyring`` for an app keyring.
    public init(keyring: Keyring, registry: Registry, users: [DemoUser], clock: @escaping @Sendable () -> Date = { Date() }) throws(KeyringError) {
        self.signer = try LaunchSigner(keyring: keyring, registry: registry)
        self.registry = registry
        self.users = users
        self.clock = clock
        do {
            template = try MustacheTemplate(string: Self.templateText)
        } catch {
            fatalError("the built-in console template does not parse: \(error)")
        }
    }

    /// Adds the console's routes.
    func addRoutes(to router: Router<WebAppRequestContext>) {
        let console = self
        router.get("/") { _, _ in console.page(refusal: nil) }
        router.post("/console/launch") { request, context in
            try await console.launch(request, context: context)
        }
        router.post("/console/plugin") { request, context in
            try await console.plugin(request, context: context)
        }
        router.get("/console/navigation") { request, _ in
            console.navigationDecision(request)
        }
    }

    /// The console; after a refusal it keeps the chosen user and the pasted link.
    private func page(
        refusal: (code: String, reason: String)?,
        status: HTTPResponse.Status = .ok,
        selectedUser: String? = nil,
        link: String = ""
    ) -> Response {
        let selected = users.contains { $0.id == selectedUser } ? selectedUser : users.first?.id
        var context: [String: Any] = [
            "style": PageAssets.style,
            "apps": registry.apps.map { app in
                ["id": app.id, "title": app.title, "summary": app.summary, "url": app.url.description]
            },
            "users": users.map { user in
                ["id": user.id, "name": "\(user.firstName) \(user.lastName)", "kvnr": KVNR(user.kvnumber)?.masked ?? "", "checked": user.id == selected]
            },
            "link": link,
            "example": PluginLink.link(for: registry.apps[0]),
        ]
        if let refusal { context["refusal"] = ["code": refusal.code, "reason": refusal.reason] }
        return Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: template.render(context)))
        )
    }

    private func launch(_ request: Request, context: WebAppRequestContext) async throws -> Response {
        let form = try await Self.form(of: request)
        guard let user = users.first(where: { $0.id == form["user"] }), let appID = form["app"], registry.app(id: appID) != nil else {
            return page(refusal: ("invalid_form", "Pick a demo user and a registered web app."), status: .badRequest)
        }
        let url = try signer.launchURL(for: appID, user: user.launchUser, now: clock())
        context.logger.info("console.launch", metadata: ["app": "\(appID)"])
        return Self.redirect(to: url)
    }

    private func plugin(_ request: Request, context: WebAppRequestContext) async throws -> Response {
        let form = try await Self.form(of: request)
        guard let user = users.first(where: { $0.id == form["user"] }) else {
            return page(refusal: ("invalid_form", "Pick a demo user."), status: .badRequest)
        }
        let link = form["link"] ?? ""
        do {
            let plugin = try PluginLink(link, in: registry)
            let url = try signer.launchURL(for: plugin.app.id, user: user.launchUser, now: clock())
            context.logger.info("console.plugin_link", metadata: ["app": "\(plugin.app.id)"])
            return Self.redirect(to: url)
        } catch let error as PluginLinkError {
            context.logger.notice("console.plugin_link_refused", metadata: ["code": "\(error.code)"])
            return page(refusal: (error.code.rawValue, error.reason), status: .unprocessableContent, selectedUser: user.id, link: link)
        }
    }

    private func navigationDecision(_ request: Request) -> Response {
        let parameters = request.uri.queryParameters
        let body: String
        if let appID = parameters["app"].map(String.init), let app = registry.app(id: appID), let url = parameters["url"].map(String.init) {
            let decision = NavigationPolicy(app: app, allowsLoopbackHTTP: true).decision(for: url)
            let (name, detail): (String, String) = switch decision {
            case .allow: ("allow", "loads in the web view")
            case .routeInApp(let link): ("routeInApp", "the app opens \(link.host)\(link.path) itself")
            case .openExternally: ("openExternally", "opens outside the web view")
            case .cancel(let refusal): ("cancel", refusal.code.rawValue)
            }
            body = #"{"decision":"\#(name)","detail":"\#(Self.jsonEscaped(detail))"}"#
        } else {
            body = #"{"decision":"cancel","detail":"unknown app or missing url"}"#
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    private static func redirect(to url: String) -> Response {
        var response = Response(status: .seeOther)
        response.headers[.location] = url
        return response
    }

    private static func form(of request: Request) async throws -> [String: String] {
        let buffer = try await request.body.collect(upTo: 16 * 1024)
        var fields: [String: String] = [:]
        for pair in String(buffer: buffer).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }

    private static func jsonEscaped(_ text: String) -> String {
        text.unicodeScalars.map { scalar -> String in
            switch scalar {
            case "\"": "\\\""
            case "\\": "\\\\"
            case "<": "\\u003c"
            default: scalar.value < 0x20 ? String(format: "\\u%04x", scalar.value) : String(scalar)
            }
        }.joined()
    }

    private static let templateText = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <link rel="icon" href="data:,">
    <title>WebAppLaunch console</title>
    <style>{{{style}}}</style>
    </head>
    <body>
    <h1>Launcher console</h1>
    <p class="muted">Development only: plays the native app. It mints launches on the server with the development keys and opens them, as the app's WebApp plugin does.</p>
    {{#refusal}}<section class="card" id="refusal"><h2>Refused</h2><p><code id="refusal-code">{{code}}</code> {{reason}}</p></section>{{/refusal}}
    <form method="post" action="/console/launch" id="launch-form">
    <section class="card">
    <h2>1. Who is the user?</h2>
    {{#users}}<p><label><input type="radio" name="user" value="{{id}}" id="user-{{id}}"{{#checked}} checked{{/checked}}> {{name}} <span class="muted">({{kvnr}})</span></label></p>{{/users}}
    </section>
    <h2>2. Open a web app</h2>
    {{#apps}}<section class="card app-card" id="card-{{id}}">
    <h3>{{title}}</h3><p>{{summary}}</p><p class="muted"><code>{{url}}</code></p>
    <button type="submit" name="app" value="{{id}}" id="open-{{id}}">Open</button>
    </section>{{/apps}}
    <section class="card">
    <h2>Or paste a plugin deep link</h2>
    <p class="muted">e.g. <code id="plugin-example">{{example}}</code></p>
    <p><input type="text" name="link" id="plugin-link" size="60" value="{{link}}" placeholder="navidapro://plugin/webapp?registeredURL=…"></p>
    <button type="submit" formaction="/console/plugin" id="plugin-open">Resolve and open</button>
    </section>
    </form>
    </body>
    </html>
    """
}
