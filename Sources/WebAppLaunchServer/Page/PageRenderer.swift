import Mustache
import WebAppLaunchMiddleware
import WebAppRegistry

/// Renders the web app's page for a launch session with swift-mustache, every `{{value}}`
/// escaped per Unicode scalar (``ScalarEscapingHTML``): names such as
/// `</script><script>alert(1)</script>`, or a `<` hidden in a grapheme cluster, render as
/// text. No user value is ever placed inside the script or style.
public struct PageRenderer: Sendable {
    private let template: MustacheTemplate
    /// The deep link the page's JavaScript-handler button posts (the plugin contract's example).
    public let articleDeepLink: String

    /// Parses the built-in template.
    /// - Parameter articleDeepLink: The deep link the page's button posts and links to.
    public init(articleDeepLink: String = DevelopmentDefaults.articleDeepLink) {
        template = ScalarEscapingHTML.template(Self.templateText)
        self.articleDeepLink = articleDeepLink
    }

    /// Renders the page.
    /// - Parameters:
    ///   - session: The verified session.
    ///   - app: The registered app being shown.
    /// - Returns: The HTML.
    public func render(session: LaunchSession, app: WebApp) -> String {
        let context: [String: Any] = [
            "title": app.title,
            "appID": app.id,
            "firstName": session.firstName,
            "lastName": session.lastName,
            "maskedKVNR": session.maskedKVNR,
            "greetingText": "Hello from \(app.title)",
            "articleDeepLink": articleDeepLink,
            "overviewDeepLink": ownDeepLink(for: app),
            "script": PageAssets.script,
            "style": PageAssets.style,
        ]
        return template.render(context)
    }

    /// A deep link inside the app's own allowlist (first host, first path prefix, first query
    /// key), so every sample page has one link the app routes; the article link above is the
    /// plugin contract's fixed example and is refused by apps that do not allow it.
    func ownDeepLink(for app: WebApp) -> String {
        guard let allowlist = app.deepLinks, let host = allowlist.hosts.first else { return articleDeepLink }
        var link = "\(allowlist.scheme)://\(host)\(allowlist.pathPrefixes.first ?? "/")"
        if let key = allowlist.queryKeys.first { link += "?\(key)=1" }
        return link
    }

    // `{{{script}}}` and `{{{style}}}` are the fixed assets whose hashes the CSP allows.
    private static let templateText = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <link rel="icon" href="data:,">
    <title>{{title}}</title>
    <style>{{{style}}}</style>
    </head>
    <body data-app-id="{{appID}}">
    <header>
    <p class="muted">{{title}}</p>
    <h1 id="greeting">Hello, <span id="first-name">{{firstName}}</span> <span id="last-name">{{lastName}}</span></h1>
    </header>
    <section class="card">
    <dl>
    <dt>First name</dt><dd id="first-name-value">{{firstName}}</dd>
    <dt>Last name</dt><dd id="last-name-value">{{lastName}}</dd>
    <dt>Insurance number</dt><dd id="kvnr">{{maskedKVNR}}</dd>
    </dl>
    </section>
    <section class="card">
    <h2>Talk to the app</h2>
    <button id="display-text" type="button" data-bridge-action="displayText" data-bridge-data="{{greetingText}}">Show a message in the app</button>
    <button id="display-name" type="button" data-bridge-action="displayText" data-bridge-data="{{firstName}} {{lastName}}">Send my name to the app</button>
    <button id="deeplink-button" type="button" data-bridge-action="deeplink" data-bridge-data="{{articleDeepLink}}">User redirection via JavaScript handler</button>
    <p><a id="deeplink-link" data-deeplink href="{{articleDeepLink}}">Open article 606 in the app</a></p>
    <p><a id="deeplink-overview" data-deeplink href="{{overviewDeepLink}}">Open this service's overview in the app</a></p>
    </section>
    <section id="bridge-fallback" hidden>
    <p><strong>Opened in a browser:</strong> these messages would go to the app.</p>
    <ul id="bridge-log"></ul>
    </section>
    <script>{{{script}}}</script>
    </body>
    </html>
    """
}
