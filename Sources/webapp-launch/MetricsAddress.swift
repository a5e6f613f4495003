import ArgumentParser
import Foundation
import NIOCore
import WebAppLaunchMiddleware

/// `--metrics-address HOST:PORT|none` of every command that listens (`serve`, `gate`,
/// `launcher`), read one way: the same form, the same error.
enum MetricsAddress {
    /// The listener an option's text names, or `nil` for `none`.
    /// - Parameter text: The option's value.
    /// - Throws: `ValidationError` for anything but `HOST:PORT`, `[IPv6]:PORT` or `none`.
    static func listener(_ text: String) throws -> MetricsListener? {
        if text == "none" { return nil }
        guard let listener = MetricsListener(text) else { throw ValidationError("--metrics-address must be HOST:PORT or none") }
        return listener
    }

    /// What each command prints once its metrics listener is bound: where to scrape (the port
    /// chosen when 0 was asked for).
    /// - Parameter listener: The configured listener (its host).
    /// - Returns: The `onMetricsServerRunning` callback.
    static func announcement(of listener: MetricsListener?) -> @Sendable (any Channel) async -> Void {
        let host = listener?.host ?? ""
        return { channel in
            let port = channel.localAddress?.port.map(String.init) ?? "?"
            FileHandle.standardOutput.write(Data("metrics: http://\(host):\(port)/metrics (this listener only)\n".utf8))
        }
    }
}
