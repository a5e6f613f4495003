import ArgumentParser
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
}
