import HTTPTypes
import WebAppLaunchMiddleware
import WebAppRegistry

/// The nginx configuration for the `auth_request` shape, written from the same constants the
/// gate decides with, so the two cannot drift: the launch rule (``LaunchRequestKind``: a
/// `launch` piece in the query, a form POST to the app's path), the identity header names
/// (``IdentityHeaders/names``), the session cookie family (``SessionCookieFamily``), the
/// forwarding policy (``UpstreamRequestHeaders/forwardingPolicy``) and the gate's paths.
///
/// `webapp-launch gate --auth-request --print-nginx-config` prints it; `Docs/nginx-auth-request.conf`
/// is its output for ``example`` (a test keeps them equal). Two snippets, to include into an
/// existing configuration: ``httpContext`` (once, in `http {}`) and ``serverContext`` (in the
/// app's `server {}`); ``complete`` wraps them into a whole file.
///
/// What it does:
/// - **One decision, before `auth_request`.** A request whose query carries a `launch` piece
///   (any method) or a form POST to the app's path goes to the gate, cookie or not; the gate
///   exchanges it or refuses it (400 for a launch where none is taken, 401 for a bad one). A
///   form POST to the launch path without `launch` gets 303 to that path: in this shape the
///   launch path is the gate's for form POSTs (nginx cannot hand a body the gate has read on
///   to the app with the identity), so an app posts its own forms elsewhere. Everything else
///   asks `/auth`, which sees the original method and target (`X-Original-Method`,
///   `X-Original-URI`) and refuses a launch too.
/// - **No launch in any log.** The access log format has the path without the query; the
///   location that carries launches logs errors only at `crit` (nginx's error lines quote the
///   whole request line, query included, e.g. when the gate is down).
/// - **Families.** Identity headers are set with `proxy_set_header` (replacing any client field
///   of the name), hidden from responses; header names with `_` are dropped
///   (`underscores_in_headers off`) and `/auth` refuses any identity field in any spelling.
///   The app's `Cookie` is the one `/auth` answers with (``appCookies``): the request's cookies
///   without any session cookie of ours, removed by the gate's own rule
///   (``SessionCookieFamily/removing(from:)``, the reverse proxy's). A configuration printed
///   by an earlier version removed them itself with four regular-expression `map`s over the
///   whole `Cookie` field: 12-25 µs of nginx's CPU per request when the session cookie had
///   other cookies around it or was long (about what `proxy_pass` costs it whole), little for
///   a short session cookie alone (BENCHMARKS.md). It removed at most
///   ``SessionCookieFamily/nginxPasses``, and `/auth` still refuses a request with more, so
///   one kept after an upgrade passes no session cookie on.
/// - **Byte-exact targets.** Every `proxy_pass` sends `$request_uri`, as the client sent it.
/// - **Kept connections.** Every request asks `/auth`, so nginx keeps enough idle connections
///   to the gate for the subrequests a worker has in flight (with fewer, each surplus
///   subrequest opens and closes one: in `scripts/bench-gate`'s shape about 40 % more CPU per
///   request for the gate and 25 % for nginx), never closes one for its count of requests, and lets an idle one
///   go before the other side would (``keepAliveTimeout(below:)``): no request meets the gate
///   or the app closing the connection it was sent on (a POST would get 502).
public struct NginxConfiguration: Sendable, Hashable {
    /// The public URL (the gate's `--public-url`): `Host`, `X-Forwarded-*`, the launch path.
    public var publicURL: RegisteredURL
    /// The gate's `host:port`.
    public var gateAddress: String
    /// The web app's `host:port`.
    public var appAddress: String
    /// Where the access log and the launch location's error log go (ends with `/`).
    public var logDirectory: String
    /// The `listen` of the example server in ``complete``.
    public var listen: String
    /// How long the gate keeps an idle client connection (its `--idle-timeout`): nginx lets
    /// its idle connections to the gate go sooner.
    public var gateIdleTimeout: Duration
    /// How long the gate keeps an idle connection to the app (its `--upstream-idle-timeout`,
    /// below the app server's own keep-alive timeout): nginx keeps its own to the app as long.
    public var appIdleTimeout: Duration

    /// Idle connections nginx keeps per worker, to the gate and to the app: at least the
    /// requests one worker has in flight under load.
    public static let keptConnections = 64
    /// Requests after which nginx would close a kept connection (its default, 1000, would
    /// reopen every connection every thousand requests): in effect never.
    public static let requestsPerConnection = 1_000_000

    /// nginx's `keepalive_timeout` for a server that closes idle connections after
    /// `serverIdleTimeout`: four fifths of it, so nginx lets a connection go first.
    /// - Parameter serverIdleTimeout: The other side's idle timeout.
    /// - Returns: The timeout in whole milliseconds, at least 1.
    public static func keepAliveTimeout(below serverIdleTimeout: Duration) -> Int64 {
        max(1, milliseconds(serverIdleTimeout) * 4 / 5)
    }

    /// A duration in whole milliseconds.
    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// The internal location launches are routed to.
    public static let exchangeLocation = "/_webapp_launch/exchange"
    /// The internal location of the `auth_request` subrequest.
    public static let authLocation = "/_webapp_launch/auth"
    /// The field carrying the original request target to `/auth`.
    public static let originalURI = HTTPField.Name("X-Original-URI")!
    /// The field carrying the original request method to `/auth`.
    public static let originalMethod = HTTPField.Name("X-Original-Method")!
    /// The field of `/auth`'s 202 that carries the app's cookies: the request's `Cookie`
    /// fields without any session cookie of ours, joined with `; `; absent when none is left.
    /// nginx sends it to the app as its `Cookie` (`auth_request_set`). Its name is in the
    /// identity family (`X-WebApp-Launch-`), so a client's field of that name is refused by
    /// `/auth` and never reaches the app, and an app's is hidden from its responses.
    public static let appCookies = HTTPField.Name("X-WebApp-Launch-App-Cookies")!

    /// Creates a configuration.
    /// - Parameters:
    ///   - publicURL: The gate's public URL.
    ///   - gateAddress: The gate's `host:port`.
    ///   - appAddress: The app's `host:port`.
    ///   - logDirectory: The log directory, ending with `/`.
    ///   - listen: The example server's `listen`.
    ///   - gateIdleTimeout: The gate's idle timeout for client connections.
    ///   - appIdleTimeout: The gate's idle timeout for connections to the app.
    public init(
        publicURL: RegisteredURL,
        gateAddress: String = "127.0.0.1:4180",
        appAddress: String = "127.0.0.1:9000",
        logDirectory: String = "/var/log/nginx/",
        listen: String = "127.0.0.1:8080",
        gateIdleTimeout: Duration = GateConfiguration.defaultIdleTimeout,
        appIdleTimeout: Duration = GateConfiguration.defaultUpstreamIdleTimeout
    ) {
        self.publicURL = publicURL
        self.gateAddress = gateAddress
        self.appAddress = appAddress
        self.logDirectory = logDirectory.hasSuffix("/") ? logDirectory : logDirectory + "/"
        self.listen = listen
        self.gateIdleTimeout = gateIdleTimeout
        self.appIdleTimeout = appIdleTimeout
    }

    /// The configuration `Docs/nginx-auth-request.conf` holds: every default, the app at
    /// `http://127.0.0.1:8080/`.
    public static var example: NginxConfiguration {
        NginxConfiguration(publicURL: try! RegisteredURL("http://127.0.0.1:8080/"))
    }

    /// The `http {}` part: log format, the launch maps, the two upstreams.
    public var httpContext: String {
        var lines: [String] = []
        lines += [
            "# Access log without the query string: a launch URL carries its token in `launch=`.",
            "# The path is the raw one the client sent ($request_uri up to `?`).",
            "map $request_uri $webapp_launch_log_path {",
            "    \"~^(?<wl_path>[^?]*)\" $wl_path;",
            "}",
            "log_format webapp_launch '$remote_addr [$time_local] \"$request_method $webapp_launch_log_path $server_protocol\" $status $body_bytes_sent';",
            "",
            "# The gate's one decision \"is this a launch\", mirrored: a `launch` piece in the query",
            "# (`launch=…` or a bare `launch`, byte for byte, any method), or a form POST to the",
            "# app's path (its body may carry one). Such requests go to the gate, cookie or not.",
            "map $args $webapp_launch_in_query {",
            "    default 0;",
            "    \"~(^|&)launch(=|&|$)\" 1;",
            "}",
            "map \"$webapp_launch_log_path $request_method $content_type\" $webapp_launch_form_post {",
            "    default 0;",
            "    \"~^\(Self.regexEscaped(publicURL.path)) POST (?i:\(LaunchRequestKind.formMediaType))\" 1;",
            "}",
            "# (Subrequests run this too and see the main request's target and method: the gate's own",
            "# internal paths are never routed.)",
            "map \"$webapp_launch_in_query$webapp_launch_form_post $uri\" $webapp_launch_to_gate {",
            "    default 1;",
            "    \"~^.. /_webapp_launch/\" 0;",
            "    \"~^00 \" 0;",
            "}",
            "",
            "# Every request asks the gate: idle connections for the subrequests a worker has in",
            "# flight, kept for any number of requests, let go before the gate's idle timeout.",
            "upstream webapp_launch_gate {",
            "    server \(gateAddress);",
        ] + Self.keepAlive(timeout: Self.keepAliveTimeout(below: gateIdleTimeout)) + [
            "}",
            "# The app's: let go when the gate lets its own go (--upstream-idle-timeout), below",
            "# the app server's keep-alive timeout.",
            "upstream webapp_launch_app {",
            "    server \(appAddress);",
        ] + Self.keepAlive(timeout: max(1, Self.milliseconds(appIdleTimeout))) + [
            "}",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// An upstream block's keep-alive lines.
    /// - Parameter milliseconds: nginx's `keepalive_timeout`.
    /// - Returns: The lines, indented for the block.
    private static func keepAlive(timeout milliseconds: Int64) -> [String] {
        let timeout = milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
        return [
            "    keepalive \(keptConnections);",
            "    keepalive_requests \(requestsPerConnection);",
            "    keepalive_timeout \(timeout);",
        ]
    }

    /// The `server {}` part: the routing of launches, the gate's locations, the app's.
    public var serverContext: String {
        let publicHost = UpstreamRequestHeaders.publicHost(publicURL)
        var lines: [String] = [
            "access_log \(logDirectory)webapp-launch.access.log webapp_launch;",
            "# Header names with `_` are dropped: WSGI/CGI apps read X_WebApp_Launch_Subject as the",
            "# identity header itself.",
            "underscores_in_headers off;",
            "ignore_invalid_headers on;",
            "",
            "# Before any location and before auth_request: whatever may carry a launch goes to the gate.",
            "if ($webapp_launch_to_gate) {",
            "    rewrite ^ \(Self.exchangeLocation) last;",
            "}",
            "",
            "# The gate exchanges the launch (303 + session cookie) or refuses it (400, 401). The app's",
            "# launch path takes no other form POST in this shape (the gate answers 303 to it).",
            "# nginx's error lines quote the request line with its query, so this location logs",
            "# errors only at crit.",
            "location = \(Self.exchangeLocation) {",
            "    internal;",
            "    error_log \(logDirectory)webapp-launch.error.log crit;",
            "    access_log \(logDirectory)webapp-launch.access.log webapp_launch;",
            "    proxy_pass http://webapp_launch_gate$request_uri;",
            "    proxy_http_version 1.1;",
            "    proxy_set_header Connection \"\";",
            "}",
            "",
            "# The auth_request subrequest: the client's headers (its cookie), no body, and the",
            "# original method and target, so the gate decides with the whole request in view.",
            "location = \(Self.authLocation) {",
            "    internal;",
            "    proxy_pass http://webapp_launch_gate\(AuthRequestEndpoint<WebAppRequestContext>.path);",
            "    proxy_pass_request_body off;",
            "    proxy_set_header Content-Length \"\";",
            "    proxy_set_header \(Self.originalURI.rawName) $request_uri;",
            "    proxy_set_header \(Self.originalMethod.rawName) $request_method;",
            "    proxy_http_version 1.1;",
            "    proxy_set_header Connection \"\";",
            "}",
            "",
            "# /auth said 401: the gate's page (or its --unauthenticated-redirect).",
            "location @webapp_launch_unauthenticated {",
            "    proxy_pass http://webapp_launch_gate$request_uri;",
            "    proxy_pass_request_body off;",
            "    proxy_set_header Content-Length \"\";",
            "    proxy_http_version 1.1;",
            "    proxy_set_header Connection \"\";",
            "}",
            "",
            "# The app, for requests with a session.",
            "location / {",
            "    error_page 401 = @webapp_launch_unauthenticated;",
        ]
        lines += appDirectives(publicHost: publicHost).map { "    " + $0 }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The directives of a location that proxies to the app: the session check, the identity
    /// from the gate's answer (replacing any client field), the app's cookies from that answer, the forwarding
    /// policy, the identity fields hidden from responses.
    private func appDirectives(publicHost: String) -> [String] {
        var lines = ["auth_request \(Self.authLocation);"]
        for name in IdentityHeaders.names {
            lines.append("auth_request_set \(Self.variable(for: name)) $upstream_http_\(Self.variableSuffix(for: name));")
        }
        for name in IdentityHeaders.names {
            lines.append("proxy_set_header \(name.rawName) \(Self.variable(for: name));")
        }
        for name in IdentityHeaders.names + [Self.appCookies] {
            lines.append("proxy_hide_header \(name.rawName);")
        }
        lines += [
            "# The request's cookies without any session cookie of ours, as /auth answered them.",
            "auth_request_set $webapp_launch_app_cookie $upstream_http_\(Self.variableSuffix(for: Self.appCookies));",
            "proxy_set_header Cookie $webapp_launch_app_cookie;",
            "# Forwarding policy (as the reverse-proxy gate): \(UpstreamRequestHeaders.forwardingPolicy).",
            "proxy_set_header Host \(publicHost);",
            "proxy_set_header \(UpstreamRequestHeaders.forwardedHost.rawName) \(publicHost);",
            "proxy_set_header \(UpstreamRequestHeaders.forwardedProto.rawName) \(publicURL.scheme);",
        ]
        for name in ["X-Forwarded-For", "X-Forwarded-Port", "X-Forwarded-Prefix", "X-Forwarded-Server", "X-Forwarded-Ssl", "X-Real-IP", "Forwarded"] {
            lines.append("proxy_set_header \(name) \"\";")
        }
        lines += [
            "proxy_http_version 1.1;",
            "proxy_set_header Connection \"\";",
            "proxy_pass http://webapp_launch_app$request_uri;",
        ]
        return lines
    }

    /// A whole `nginx.conf`: both parts inside an example server.
    public var complete: String {
        let indent = { (text: String, prefix: String) in
            text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : prefix + $0 }.joined(separator: "\n")
        }
        return """
        # nginx in front of a web app written in any language, with the WebAppLaunch gate as its
        # auth_request endpoint. Printed by
        #   webapp-launch gate --auth-request --app healthmagazin --public-url \(publicURL) \\
        #       --port 4180 --print-nginx-config
        # from the rules the gate itself decides with; a test keeps Docs/nginx-auth-request.conf
        # equal to this output. To add the gate to an existing configuration, take the part
        # marked "http" into http {} and the part marked "server" into the app's server {}.
        #
        #   browser ──► nginx ──(launch in query, or form POST to the app's path)──► gate   (303 + cookie, 400, 401)
        #                 └──auth_request──► gate /auth (202 + identity, or 401) ──► the web app
        #
        # Run the gate beside it:
        #   webapp-launch gate --auth-request --host 127.0.0.1 --port 4180 --app healthmagazin \\
        #       --public-url \(publicURL) --keyring healthmagazin.app-keyring.json --replay env:DATABASE_URL
        # In production listen on 443 with TLS (the gate's cookie is then __Host- and Secure) and
        # keep the gate and the app on loopback or a private network: only nginx may reach them.

        worker_processes auto;

        events {
            worker_connections 1024;
        }

        http {
            # ---- http: begin ----
        \(indent(httpContext, "    "))    # ---- http: end ----

            server {
                listen \(listen);
                # server_name magazin.example;
                # listen 443 ssl; ssl_certificate …; ssl_certificate_key …;
                client_max_body_size 10m;

                # ---- server: begin ----
        \(indent(serverContext, "        "))        # ---- server: end ----
            }
        }

        """
    }

    /// The nginx variable an identity header is kept in (`$webapp_launch_subject`).
    static func variable(for name: HTTPField.Name) -> String {
        "$webapp_launch_" + String(variableSuffix(for: name).dropFirst(IdentityHeaders.prefix.count))
    }

    /// nginx's variable spelling of a field name: lower-case, `-` as `_`.
    static func variableSuffix(for name: HTTPField.Name) -> String {
        IdentityHeaders.foldedName(name.rawName).replacingDashes()
    }

    /// A literal for a PCRE pattern: every byte that is not a letter, digit, `/`, `_` or `-` escaped.
    static func regexEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text.unicodeScalars {
            switch character {
            case "a"..."z", "A"..."Z", "0"..."9", "/", "_", "-": escaped.unicodeScalars.append(character)
            case "\"", "\\", "$", "{", "}", ";", " ": escaped += "\\x" + String(character.value, radix: 16, uppercase: false).leftPadded()
            default: escaped += "\\" + String(character)
            }
        }
        return escaped
    }
}

extension String {
    fileprivate func replacingDashes() -> String {
        String(map { $0 == "-" ? "_" : $0 })
    }

    fileprivate func leftPadded() -> String { count < 2 ? String(repeating: "0", count: 2 - count) + self : self }
}
