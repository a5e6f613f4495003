import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import WebAppLaunchLauncher
import WebAppLaunchTestSupport

/// The OAuth provider of `authlib_provider.py` (Authlib and Flask from PyPI), run on loopback
/// as a subprocess: RFC 7662 introspection, RFC 9068 JWT access tokens with a rotatable key
/// set, and RFC 8693 token exchange, none of which oidc-provider-mock offers.
///
/// `scripts/test` installs Authlib and Flask into `.build/oidc-venv` and sets
/// `WEBAPP_LAUNCH_AUTHLIB_PYTHON` to that Python (without the variable, that installation is
/// used). Without either, the tests that need it fail with a message saying how to install
/// it; they never skip silently.
final class AuthlibProvider: @unchecked Sendable {
    // @unchecked: `process` is touched only by `stop()`, on the owning test's task (never
    // concurrently); every other member is immutable or itself Sendable.

    /// How the provider issues access tokens.
    enum Format: String, Sendable {
        case jwt
        case opaque
    }

    static let pythonVariable = "WEBAPP_LAUNCH_AUTHLIB_PYTHON"
    /// The launcher's audience at this provider.
    static let launcherAudience = "https://launcher.example-insurer.de"
    static let magazinAudience = "https://api.healthmagazin.example"
    static let bonusAudience = "https://api.bonusprogramm.example"
    static let launcherClient = (id: "launcher", secret: "launcher-secret")

    let port: Int
    let format: Format
    var issuer: String { "http://127.0.0.1:\(port)" }
    var jwksURL: URL { URL(string: issuer + "/jwks")! }
    var introspectionURL: URL { URL(string: issuer + "/introspect")! }
    var tokenURL: URL { URL(string: issuer + "/token")! }

    private var process: BackgroundSubprocess?
    private let http: HTTPClient
    private let directory: TemporaryDirectory

    private init(port: Int, format: Format, process: BackgroundSubprocess, http: HTTPClient, directory: TemporaryDirectory) {
        self.port = port
        self.format = format
        self.process = process
        self.http = http
        self.directory = directory
    }

    static let script = RepositoryFile.path("Tests/WebAppLaunchLauncherTests/Support/authlib_provider.py")
    static let installedPython = RepositoryFile.testVirtualEnvironment + "/bin/python"

    /// The Python with Authlib, or a failure that says how to get it.
    static func python() throws -> String {
        let named = ProcessInfo.processInfo.environment[pythonVariable].flatMap { $0.isEmpty ? nil : $0 }
        guard let path = named ?? (FileManager.default.isExecutableFile(atPath: installedPython) ? installedPython : nil) else {
            throw SubprocessError(message: """
                \(pythonVariable) is not set and \(installedPython) does not exist: these tests need Authlib and Flask. \
                Run scripts/test, or: python3 -m venv .build/oidc-venv && .build/oidc-venv/bin/pip install Authlib==1.9.10 Flask==3.1.3
                """)
        }
        return path
    }

    /// Starts the provider on a free loopback port and waits (bounded) until it answers.
    static func start(format: Format) async throws -> AuthlibProvider {
        let python = try python()
        let directory = try TemporaryDirectory()
        var lastError: (any Error)?
        for _ in 0..<3 {
            let port = try freeLoopbackPort()
            let process = try BackgroundSubprocess(
                python,
                [script, "--port", String(port), "--format", format.rawValue],
                environment: ["PYTHONUNBUFFERED": "1", "PYTHONWARNINGS": "ignore"],
                standardErrorPath: directory.path("authlib-\(port).log")
            )
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.timeout = .init(connect: .seconds(2), read: .seconds(10))
            let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            let provider = AuthlibProvider(port: port, format: format, process: process, http: http, directory: directory)
            TestTrace.note("authlib: spawned pid \(process.pid) on port \(port)")
            do {
                try await provider.waitUntilReady()
                return provider
            } catch {
                lastError = error
                try? await provider.stop()
            }
        }
        directory.remove()
        throw lastError ?? SubprocessError(message: "the Authlib provider did not start")
    }

    private func waitUntilReady() async throws {
        // Up to 30 s (Python, Authlib and two RSA keys on a busy two-core machine), in 100 ms steps.
        for _ in 0..<300 {
            if let (status, _) = try? await request("GET", "/.well-known/openid-configuration"), status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw SubprocessError(message: "the Authlib provider on port \(port) did not answer within 30 s; log:\n\(process?.standardError ?? "")")
    }

    /// Tokens from the password grant: the native app's (`native-app`) or another client's.
    func tokens(for user: String = "alice", client: String = "native-app", scope: String = "openid") async throws -> (access: String, refresh: String?) {
        let secret = client == "native-app" ? "native-secret" : "other-secret"
        let form = "grant_type=password&username=\(user)&password=pw&scope=\(scope)"
        let (status, body) = try await request("POST", "/token", body: Data(form.utf8), contentType: "application/x-www-form-urlencoded", basic: "\(client):\(secret)")
        guard status == 200, let object = try JSONSerialization.jsonObject(with: body) as? [String: Any], let access = object["access_token"] as? String else {
            throw SubprocessError(message: "the token endpoint answered \(status)")
        }
        return (access, object["refresh_token"] as? String)
    }

    /// Makes an endpoint (`token`, `exchange`, `introspect`, `jwks`) fail: with a status, or
    /// (`dripSeconds`) with a 200 whose body comes one byte at a time. `times` -1 is for good.
    func fail(_ endpoint: String, status: Int = 503, retryAfter: String? = nil, body: [String: String]? = nil, wwwAuthenticate: String? = nil, dripSeconds: Double? = nil, times: Int = -1) async throws {
        var spec: [String: Any] = ["endpoint": endpoint, "status": status, "times": times]
        if let retryAfter { spec["retry_after"] = retryAfter }
        if let body { spec["body"] = body }
        if let wwwAuthenticate { spec["www_authenticate"] = wwwAuthenticate }
        if let dripSeconds { spec["drip"] = dripSeconds }
        let (code, _) = try await request("POST", "/test/fail", body: try JSONSerialization.data(withJSONObject: spec), contentType: "application/json")
        guard code == 204 else { throw SubprocessError(message: "/test/fail answered \(code)") }
    }

    /// Requests per endpoint so far.
    func counts() async throws -> [String: Int] {
        let (_, body) = try await request("GET", "/test/counts")
        return (try JSONSerialization.jsonObject(with: body) as? [String: Int]) ?? [:]
    }

    /// A new signing key; the old one stays published when `keepOld`.
    @discardableResult
    func rotateKeys(keepOld: Bool) async throws -> String {
        let (_, body) = try await request("POST", "/test/rotate?keep_old=\(keepOld ? 1 : 0)")
        return ((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["kid"] as? String) ?? ""
    }

    /// A token signed as asked: `current` (the provider's key), `foreign` (a key it never
    /// published), `none` (alg none) or `hs256-public` (HS256 keyed with the public key's PEM).
    func sign(claims: [String: Any], header: [String: Any] = [:], key: String = "current") async throws -> String {
        let spec: [String: Any] = ["claims": claims, "header": header, "key": key]
        let (status, body) = try await request("POST", "/test/sign", body: try JSONSerialization.data(withJSONObject: spec), contentType: "application/json")
        guard status == 200, let token = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["token"] as? String else {
            throw SubprocessError(message: "/test/sign answered \(status)")
        }
        return token
    }

    /// Claims of a well-formed native-app access token, for `sign`, with one change applied.
    func claims(_ change: (inout [String: Any]) -> Void = { _ in }) -> [String: Any] {
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: Any] = [
            "iss": issuer, "sub": "alice", "aud": Self.launcherAudience, "client_id": "native-app",
            "iat": now, "exp": now + 600, "jti": UUID().uuidString, "scope": "openid",
            "given_name": "Jürgen-Quirin", "family_name": "Großmann-Zydeck", "kvnr": "A123456780",
        ]
        change(&claims)
        return claims
    }

    /// Stops the provider (SIGTERM, bounded) and releases the client; a second call does nothing.
    func stop() async throws {
        guard process != nil else { return }
        try await offload { self.stopProcess() }
        try await http.shutdown()
        directory.remove()
    }

    private func stopProcess() {
        guard let process else { return }
        self.process = nil
        _ = try? process.stopBlocking(within: .seconds(10))
    }

    private func request(_ method: String, _ path: String, body: Data? = nil, contentType: String? = nil, basic: String? = nil) async throws -> (Int, Data) {
        var request = HTTPClientRequest(url: issuer + path)
        request.method = HTTPMethod(rawValue: method)
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        if let basic { request.headers.add(name: "Authorization", value: "Basic " + Data(basic.utf8).base64EncodedString()) }
        if let body { request.body = .bytes(Array(body)) }
        let response = try await http.execute(request, timeout: .seconds(15))
        let data = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), Data(data.readableBytesView))
    }
}

/// Runs `body` with a fresh Authlib provider and a launcher HTTP client; stops and shuts
/// both down afterwards, whatever happens. Shares the two provider slots with
/// oidc-provider-mock (two Python processes at most).
func withAuthlibProvider<T>(
    format: AuthlibProvider.Format,
    connectTimeout: Duration = .seconds(3),
    readTimeout: Duration = .seconds(5),
    _ body: (AuthlibProvider, HTTPClient) async throws -> T
) async throws -> T {
    await ProviderSlots.shared.acquire()
    defer { Task { await ProviderSlots.shared.release() } }
    let provider = try await AuthlibProvider.start(format: format)
    TestTrace.note("authlib: started on port \(provider.port)")
    let client = IdentityProviderHTTPClient.make(connectTimeout: connectTimeout, readTimeout: readTimeout)
    do {
        let result = try await body(provider, client)
        try await client.shutdown()
        try await provider.stop()
        TestTrace.note("authlib: stopped")
        return result
    } catch {
        try? await client.shutdown()
        try? await provider.stop()
        TestTrace.note("authlib: stopped after \(error)")
        throw error
    }
}
