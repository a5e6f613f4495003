import Foundation
import WebAppLaunchGate
import WebAppLaunchTestSupport
import WebAppRegistry

#if canImport(Glibc)
import Glibc
#endif

/// Real nginx with the configuration the gate prints (the two parts of ``NginxConfiguration``
/// in a server of its own, optionally over TLS), in the foreground (`daemon off`) under a
/// temporary prefix.
final class Nginx {
    let process: BackgroundSubprocess
    let port: Int
    let scheme: String
    let directory: TemporaryDirectory

    /// Where nginx is installed on Debian.
    static let executable = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Starts nginx in front of `upstreamPort` with the gate at `gatePort`, listening on `port`,
    /// with the configuration the gate prints (``NginxConfiguration``) for `publicURL`.
    /// - Parameter tls: A certificate and key: nginx listens with TLS (`https` public URL).
    /// - Throws: A clear error when nginx is not installed (scripts/test installs it): the
    ///   test fails rather than skips.
    init(port: Int, gatePort: Int, upstreamPort: Int, publicURL: RegisteredURL, tls: (certificate: String, key: String)? = nil) async throws {
        guard let executable = Self.executable else {
            throw SubprocessError(message: "nginx is not installed (apt-get install nginx; scripts/test does this)")
        }
        self.port = port
        self.scheme = tls == nil ? "http" : "https"
        directory = try TemporaryDirectory()
        let nginx = NginxConfiguration(
            publicURL: publicURL, gateAddress: "127.0.0.1:\(gatePort)", appAddress: "127.0.0.1:\(upstreamPort)",
            logDirectory: directory.path("") + "/", listen: "127.0.0.1:\(port)"
        )
        let indent = { (text: String) in text.split(separator: "\n").map { "        " + $0 }.joined(separator: "\n") }
        let listen = tls.map { "listen 127.0.0.1:\(port) ssl;\n        ssl_certificate \($0.certificate);\n        ssl_certificate_key \($0.key);" }
            ?? "listen 127.0.0.1:\(port);"
        let configuration = """
        worker_processes 1;
        events { worker_connections 256; }
        http {
        \(indent(nginx.httpContext))
            server {
                \(listen)
                client_max_body_size 10m;
        \(indent(nginx.serverContext))
            }
        }

        """
        let configurationPath = directory.path("nginx.conf")
        try configuration.write(toFile: configurationPath, atomically: true, encoding: .utf8)
        let prefix = directory.path("") + "/"
        let globals = [
            "daemon off;", "master_process on;", "pid \(directory.path("nginx.pid"));", "error_log \(directory.path("error.log")) notice;",
        ].joined(separator: " ")
        let check = try await runSubprocess(executable, ["-t", "-p", prefix, "-c", configurationPath, "-g", globals], timeout: .seconds(10))
        guard check.status == 0 else { throw SubprocessError(message: "nginx -t failed: \(check.standardError)") }
        process = try BackgroundSubprocess(
            executable, ["-p", prefix, "-c", configurationPath, "-g", globals],
            standardErrorPath: directory.path("stderr.log")
        )
        // Bounded wait until nginx accepts connections.
        let deadline = ContinuousClock.now + .seconds(10)
        while true {  // tried once more after the deadline: one sleep can outlast it when busy
            if Self.accepts(port: port) { return }
            guard ContinuousClock.now < deadline else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw SubprocessError(message: "nginx did not listen on \(port) within 10 s: \(process.standardError) \(errorLog)")
    }

    var errorLog: String { (try? String(contentsOfFile: directory.path("error.log"), encoding: .utf8)) ?? "" }
    /// The error log of the location that carries launches (only `crit` lines).
    var launchErrorLog: String { (try? String(contentsOfFile: directory.path("webapp-launch.error.log"), encoding: .utf8)) ?? "" }
    var accessLog: String { (try? String(contentsOfFile: directory.path("webapp-launch.access.log"), encoding: .utf8)) ?? "" }

    var origin: String { "\(scheme)://127.0.0.1:\(port)" }

    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    deinit { _ = try? process.stopBlocking(with: SIGQUIT, within: .seconds(10)) }
}
