import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Mustache
import NIOCore
import WebAppLaunch
import WebAppLaunchLauncher
import WebAppLaunchMiddleware
import WebAppLaunchNative
import WebAppRegistry

/// The launcher console: the native app's side of the handshake, simulated in a browser.
///
/// `GET /` lists the registered apps as cards with a choice of demo users; "Open" asks the
/// launcher (a `LauncherService`, when the server gives the console one) for a launch with
/// the demo user's access token, exactly as the app does, and redirects to the launch URL, as
/// the app's WebApp plugin does. Without a launcher it mints with ``LaunchSigner`` itself.
/// Either way the key never reaches the browser. A plugin deep link
/// (`navidapro://plugin/webapp?registeredURL=…`) can be pasted and is resolved with
/// ``PluginLink``. `GET /console/navigation` tells the page's bridge fallback what
/// ``NavigationPolicy`` would decide for a link.
///
/// These routes exist only with a development keyring on a loopback address
/// (``isPermitted(keyring:host:)``); otherwise they are never registered and answer 404.
/// Even then the console can mint for anyone, so it guards itself like a login form:
/// - every request must name a loopback host in `Host` (a DNS-rebinding page on another
///   name is refused), and a POST whose `Origin` is not that same loopback origin is refused;
/// - every POST must carry the console's CSRF token, a random value made when the console
///   starts and only readable from the console page itself.
/// Everything it echoes (a pasted link, a refusal) is escaped per Unicode scalar.
public struct DevelopmentConsole: Sendable {
    let signer: LaunchSigner
    let registry: Registry
    let users: [DemoUser]
    let clock: @Sendable () -> Date
    /// The launcher the console asks, as the app would; `nil` mints directly.
    let launcher: LauncherService?
    /// The CSRF token of this console's forms: 16 random bytes, hex; `nil` if the random
    /// source failed, and then every POST is refused.
    let csrfToken: String?
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

    /// Creates the console of a server.
    /// - Parameters:
    ///   - configuration: The server's configuration: its development launcher keyring, the
    ///     apps as served (rebased to the server's port), the demo users and the clock.
    ///   - launcher: The launcher to ask for launches with the demo users' access tokens, as
    ///     the app asks its backend; `nil` mints with the signer directly.
    /// - Throws: `KeyringError` (`not_launcher_keyring`) for an app keyring, which cannot mint.
    public init(configuration: WebAppServerConfiguration, launcher: LauncherService? = nil) throws(KeyringError) {
        self.launcher = launcher
        self.signer = try LaunchSigner(keyring: configuration.keyring, registry: configuration.registry)
        self.registry = configuration.registry
        self.users = configuration.demoUsers
        self.clock = configuration.clock
        self.csrfToken = (try? SecureRandom.bytes(count: 16))?.map { String(format: "%02x", $0) }.joined()
        template = ScalarEscapingHTML.template(Self.templateText)
    }

    /// The form fields of `POST /console/launch` and `POST /console/plugin`.
    struct ConsoleForm: Decodable {
        var csrf: String?
        var user: String?
        var app: String?
        var link: String?
    }

    /// What `GET /console/navigation` answers.
    struct NavigationAnswer: ResponseEncodable {
        let decision: String
        let detail: String
    }

    /// Adds the console's routes.
    func addRoutes(to router: Router<WebAppRequestContext>) {
        let console = self
        let routes = router.group().add(middleware: ConsoleRequestGuard<WebAppRequestContext>())
        routes.get("/") { _, _ in console.page(refusal: nil) }
        routes.post("/console/launch") { request, context in
            try await console.launch(request, context: context)
        }
        routes.post("/console/plugin") { request, context in
            try await console.plugin(request, context: context)
        }
        routes.get("/console/navigation") { request, _ in
            console.navigationDecision(request)
        }
    }

    /// The console; after a refusal it keeps the chosen user and the pasted link.
    private func page(
        refusal: (code: String, reason: String)?,
        status: HTTPResponse.Status = .ok,
        selectedUser: String? = nil,
        link: String = ""
    ) -> HTMLResponse {
        let selected = users.contains { $0.id == selectedUser } ? selectedUser : users.first?.id
        var context: [String: Any] = [
            "style": PageAssets.style,
            "csrf": csrfToken ?? "",
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
        return HTMLResponse(template.render(context), status: status)
    }

    private func launch(_ request: Request, context: WebAppRequestContext) async throws -> Response {
        guard let form = try await checkedForm(of: request) else {
            return try page(refusal: ("invalid_form", "The console form expired; reload the console."), status: .forbidden)
                .response(from: request, context: context)
        }
        guard let user = users.first(where: { $0.id == form.user }), let appID = form.app, registry.app(id: appID) != nil else {
            return try page(refusal: ("invalid_form", "Pick a demo user and a registered web app."), status: .badRequest)
                .response(from: request, context: context)
        }
        let url: String
        do {
            url = try await launchURL(for: appID, user: user)
        } catch {
            context.logger.notice("console.launch_refused", metadata: ["code": "\(error.code)"])
            return try page(refusal: (error.code.rawValue, "The launcher refused: \(error.code)."), status: .badGateway, selectedUser: user.id)
                .response(from: request, context: context)
        }
        context.logger.info("console.launch", metadata: ["app": "\(appID)"])
        return .redirect(to: url, type: .normal)
    }

    private func plugin(_ request: Request, context: WebAppRequestContext) async throws -> Response {
        guard let form = try await checkedForm(of: request) else {
            return try page(refusal: ("invalid_form", "The console form expired; reload the console."), status: .forbidden)
                .response(from: request, context: context)
        }
        guard let user = users.first(where: { $0.id == form.user }) else {
            return try page(refusal: ("invalid_form", "Pick a demo user."), status: .badRequest)
                .response(from: request, context: context)
        }
        let link = form.link ?? ""
        do {
            let plugin = try PluginLink(link, in: registry)
            let url = try await launchURL(for: plugin.app.id, user: user)
            context.logger.info("console.plugin_link", metadata: ["app": "\(plugin.app.id)"])
            return .redirect(to: url, type: .normal)
        } catch let error as PluginLinkError {
            context.logger.notice("console.plugin_link_refused", metadata: ["code": "\(error.code)"])
            return try page(refusal: (error.code.rawValue, error.reason), status: .unprocessableContent, selectedUser: user.id, link: link)
                .response(from: request, context: context)
        } catch let error as LauncherError {
            context.logger.notice("console.launch_refused", metadata: ["code": "\(error.code)"])
            return try page(refusal: (error.code.rawValue, "The launcher refused: \(error.code)."), status: .badGateway, selectedUser: user.id, link: link)
                .response(from: request, context: context)
        }
    }

    /// A launch for a demo user: from the launcher with the user's access token (names and
    /// KVNR then come from the identity provider), or from the signer without a launcher.
    private func launchURL(for appID: String, user: DemoUser) async throws(LauncherError) -> String {
        if let launcher {
            return try await launcher.launch(appID: appID, accessToken: user.accessToken, now: clock()).url
        }
        do {
            return try signer.launchURL(for: appID, user: user.launchUser, now: clock())
        } catch {
            throw LauncherError(.mintFailed, "the signer failed (\(error.code))")
        }
    }

    private func navigationDecision(_ request: Request) -> NavigationAnswer {
        let parameters = request.uri.queryParameters
        guard let appID = parameters["app"].map(String.init), let app = registry.app(id: appID), let url = parameters["url"].map(String.init) else {
            return NavigationAnswer(decision: "cancel", detail: "unknown app or missing url")
        }
        switch NavigationPolicy(app: app, allowsLoopbackHTTP: true).decision(for: url) {
        case .allow: return NavigationAnswer(decision: "allow", detail: "loads in the web view")
        case .routeInApp(let link): return NavigationAnswer(decision: "routeInApp", detail: "the app opens \(link.host)\(link.path) itself")
        case .openExternally: return NavigationAnswer(decision: "openExternally", detail: "opens outside the web view")
        case .cancel(let refusal): return NavigationAnswer(decision: "cancel", detail: refusal.code.rawValue)
        }
    }

    /// The decoded form, or `nil` when its CSRF token is missing or wrong (compared in constant time).
    private func checkedForm(of request: Request) async throws -> ConsoleForm? {
        let buffer = try await request.body.collect(upTo: 16 * 1024)
        guard let form = try? URLEncodedFormDecoder().decode(ConsoleForm.self, from: String(buffer: buffer)),
              let token = form.csrf, let expected = csrfToken,
              ConstantTime.equals(Array(token.utf8), Array(expected.utf8))
        else { return nil }
        return form
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
    <p class="muted">Development only: plays the native app. It asks the launcher for a launch with the demo user's access token, which the development identity provider vouches for, and opens it, as the app's WebApp plugin does.</p>
    {{#refusal}}<section class="card" id="refusal"><h2>Refused</h2><p><code id="refusal-code">{{code}}</code> {{reason}}</p></section>{{/refusal}}
    <form method="post" action="/console/launch" id="launch-form">
    <input type="hidden" name="csrf" value="{{csrf}}">
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
