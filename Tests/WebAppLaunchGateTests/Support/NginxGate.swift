import Foundation
import Testing
import WebAppLaunchGate
import WebAppLaunchTestSupport
import WebAppRegistry

/// Runs the Python upstream, the gate (auth_request mode, in this process) and real nginx
/// with the configuration the gate prints; `body` gets nginx, the public URL and a client.
/// - Parameters:
///   - upstreamPort: The app's port (default: the Python upstream's; a closed one for "down").
///   - tls: nginx over https with a throwaway self-signed certificate (the gate's cookie is then `__Host-`).
///   - adjust: Changes to the gate's configuration.
func withNginxGate(
    upstreamPort: Int? = nil,
    tls: Bool = false,
    adjust: @escaping (inout GateConfiguration) -> Void = { _ in },
    _ body: @Sendable (Nginx, RegisteredURL, TestClient) async throws -> Void
) async throws {
    let upstream = try await EchoUpstream()
    let nginxPort = try freeLoopbackPort()
    let gatePort = try freeLoopbackPort()
    let appPort = upstreamPort ?? upstream.port
    let certificate = tls ? try await TestCertificate() : nil
    try await withGate(mode: .authRequest, gatePort: gatePort, publicPort: nginxPort, publicScheme: tls ? "https" : "http", adjust: adjust) { publicURL, client in
        let nginx = try await Nginx(
            port: nginxPort, gatePort: gatePort, upstreamPort: appPort, publicURL: publicURL,
            tls: certificate.map { ($0.certificate, $0.key) }
        )
        do {
            try await body(nginx, publicURL, client)
        } catch {
            Issue.record("nginx error log:\n\(nginx.errorLog)")
            throw error
        }
        withExtendedLifetime(nginx) {}
    }
    withExtendedLifetime((upstream, certificate)) {}
}

/// One request with curl (for https with the throwaway certificate, and for targets sent as
/// they are: `--path-as-is`, no URL parsing of ours): status, header lines, body.
func curl(_ url: String, method: String = "GET", headers: [(String, String)] = []) async throws -> (status: Int, headers: [(String, String)], body: String) {
    var arguments = ["-sk", "-i", "--path-as-is", "--globoff", "--max-time", "10", "-X", method]
    for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
    arguments.append(url)
    let result = try await runSubprocess("/usr/bin/curl", arguments)
    guard result.status == 0 else { throw SubprocessError(message: "curl failed: \(result)") }
    let parts = result.standardOutput.components(separatedBy: "\r\n\r\n")
    let head = parts[0].components(separatedBy: "\r\n")
    let status = Int(head[0].split(separator: " ")[1]) ?? 0
    let fields = head.dropFirst().compactMap { line -> (String, String)? in
        guard let colon = line.firstIndex(of: ":") else { return nil }
        return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    return (status, fields, parts.dropFirst().joined(separator: "\r\n\r\n"))
}
