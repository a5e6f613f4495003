import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import WebAppLaunchTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A real OpenID provider that nobody here wrote: `oidc-provider-mock` (PyPI, 0.3.4), run on
/// loopback as a subprocess.
///
/// `scripts/test` installs it into `.build/oidc-venv` and sets `WEBAPP_LAUNCH_OIDC_MOCK` to its
/// executable (without the variable, that installation is used). Without either, the tests
/// that need it fail with a message saying how to install it; they never skip silently.
final class OIDCProviderMock: @unchecked Sendable {
    // @unchecked: `process` is touched only by `stop()`, which runs on the owning test's task
    // (never concurrently); every other member is immutable or itself Sendable.

    /// The environment variable naming the `oidc-provider-mock` executable.
    static let executableVariable = "WEBAPP_LAUNCH_OIDC_MOCK"

    let port: Int
    /// The issuer URL, as the provider states it in discovery.
    let issuer: URL
    private var process: BackgroundSubprocess?
    private let http: HTTPClient
    private let directory: TemporaryDirectory
    static let redirectURI = "http://127.0.0.1/callback"

    private init(port: Int, process: BackgroundSubprocess, http: HTTPClient, directory: TemporaryDirectory) {
        self.port = port
        self.issuer = URL(string: "http://127.0.0.1:\(port)")!
        self.process = process
        self.http = http
        self.directory = directory
    }

    /// Where `scripts/test` installs it: `.build/oidc-venv` of this checkout, used when the
    /// variable is not set, so `swift test` works by hand after one `scripts/test`.
    static let installedExecutable = RepositoryFile.testVirtualEnvironment + "/bin/oidc-provider-mock"

    /// The executable, or a failure that says how to get it.
    static func executable() throws -> String {
        let named = ProcessInfo.processInfo.environment[executableVariable].flatMap { $0.isEmpty ? nil : $0 }
        guard let path = named ?? (FileManager.default.isExecutableFile(atPath: installedExecutable) ? installedExecutable : nil) else {
            throw SubprocessError(message: """
                \(executableVariable) is not set and \(installedExecutable) does not exist: these tests need the real \
                OpenID provider oidc-provider-mock 0.3.4. Run scripts/test, or: python3 -m venv .build/oidc-venv && \
                .build/oidc-venv/bin/pip install oidc-provider-mock==0.3.4
                """)
        }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw SubprocessError(message: "\(executableVariable)=\(path) is not an executable file")
        }
        return path
    }

    /// Starts the provider on a free loopback port and waits (bounded) until discovery answers.
    static func start() async throws -> OIDCProviderMock {
        let executable = try executable()
        let directory = try TemporaryDirectory()
        var lastError: (any Error)?
        for _ in 0..<3 {
            let port = try freeLoopbackPort()
            let process = try BackgroundSubprocess(
                executable,
                ["--host", "127.0.0.1", "--port", String(port)],
                environment: ["NO_COLOR": "1", "PYTHONUNBUFFERED": "1"],
                standardErrorPath: directory.path("oidc-provider-mock-\(port).log")
            )
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.timeout = .init(connect: .seconds(2), read: .seconds(10))
            let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            let mock = OIDCProviderMock(port: port, process: process, http: http, directory: directory)
            TestTrace.note("provider: spawned pid \(process.pid) on port \(port)")
            do {
                try await mock.waitUntilReady()
                return mock
            } catch {
                lastError = error
                try? await mock.stop()
            }
        }
        directory.remove()
        throw lastError ?? SubprocessError(message: "oidc-provider-mock did not start")
    }

    private func waitUntilReady() async throws {
        // Up to 30 s (Python's start-up on a busy two-core machine), in 100 ms steps.
        for _ in 0..<300 {
            if let (status, _) = try? await request("GET", "/.well-known/openid-configuration"), status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw SubprocessError(message: "oidc-provider-mock on port \(port) did not answer within 30 s; log:\n\(process?.standardError ?? "")")
    }

    /// Sets a user's claims (`PUT /users/SUB`).
    func setUser(_ subject: String, claims: [String: String]) async throws {
        let body = try JSONSerialization.data(withJSONObject: claims)
        let (status, _) = try await request("PUT", "/users/\(subject)", body: body, contentType: "application/json")
        guard status == 204 else { throw SubprocessError(message: "PUT /users/\(subject) answered \(status)") }
    }

    /// Revokes every token of a user (`POST /users/SUB/revoke-tokens`).
    func revokeTokens(of subject: String) async throws {
        let (status, _) = try await request("POST", "/users/\(subject)/revoke-tokens")
        guard status == 204 else { throw SubprocessError(message: "revoke-tokens answered \(status)") }
    }

    /// A real access token for a user, through the authorization-code flow: the authorize
    /// form posted as the user would, the code from the redirect, the token endpoint with
    /// HTTP Basic client credentials.
    func accessToken(for subject: String, scope: String = "openid profile") async throws -> String {
        let state = UUID().uuidString
        var components = URLComponents(string: "http://127.0.0.1:\(port)/oauth2/authorize")!
        components.queryItems = [
            URLQueryItem(name: "client_id", value: "launcher-tests"),
            URLQueryItem(name: "redirect_uri", value: Self.redirectURI),
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "scope", value: scope),
            URLQueryItem(name: "state", value: state),
        ]
        let authorize = "/oauth2/authorize?" + components.percentEncodedQuery!
        let (status, headers, _) = try await exchange(
            "POST", authorize,
            body: Data("sub=\(Self.formEncoded(subject))&action=authorize".utf8),
            contentType: "application/x-www-form-urlencoded"
        )
        guard (300..<400).contains(status), let location = headers["Location"].first,
              let redirect = URLComponents(string: location),
              redirect.queryItems?.first(where: { $0.name == "state" })?.value == state,
              let code = redirect.queryItems?.first(where: { $0.name == "code" })?.value
        else {
            throw SubprocessError(message: "authorize answered \(status) without a code")
        }
        let form = "grant_type=authorization_code&code=\(Self.formEncoded(code))&redirect_uri=\(Self.formEncoded(Self.redirectURI))"
        let (tokenStatus, _, tokenBody) = try await exchange(
            "POST", "/oauth2/token",
            body: Data(form.utf8),
            contentType: "application/x-www-form-urlencoded",
            basicAuthorization: "launcher-tests:secret"
        )
        guard tokenStatus == 200,
              let object = try JSONSerialization.jsonObject(with: tokenBody) as? [String: Any],
              let token = object["access_token"] as? String
        else {
            throw SubprocessError(message: "the token endpoint answered \(tokenStatus)")
        }
        return token
    }

    /// Stops the provider (SIGTERM, bounded) and releases the client; a second call does nothing.
    func stop() async throws {
        guard process != nil else { return }
        // Waiting for the exit polls with sleeps: on its own thread, never on one of the
        // cooperative pool's (two, here) that the in-process servers under test need.
        try await offload { self.stopProcess() }
        TestTrace.note("provider: process ended")
        try await http.shutdown()
        TestTrace.note("provider: its HTTP client shut down")
        directory.remove()
    }

    private func stopProcess() {
        guard let process else { return }
        self.process = nil
        _ = try? process.stopBlocking(within: .seconds(10))
    }

    private func request(_ method: String, _ path: String, body: Data? = nil, contentType: String? = nil) async throws -> (Int, Data) {
        let (status, _, data) = try await exchange(method, path, body: body, contentType: contentType)
        return (status, data)
    }

    private func exchange(
        _ method: String,
        _ path: String,
        body: Data? = nil,
        contentType: String? = nil,
        basicAuthorization: String? = nil
    ) async throws -> (Int, HTTPHeaders, Data) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)" + path)
        request.method = HTTPMethod(rawValue: method)
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        if let basicAuthorization {
            request.headers.add(name: "Authorization", value: "Basic " + Data(basicAuthorization.utf8).base64EncodedString())
        }
        if let body { request.body = .bytes(Array(body)) }
        let response = try await http.execute(request, timeout: .seconds(15))
        let data = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.headers, Data(data.readableBytesView))
    }

    private static func formEncoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
    }
}
