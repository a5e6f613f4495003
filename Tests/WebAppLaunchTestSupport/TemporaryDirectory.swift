import Foundation

/// A fresh directory under the system's temporary directory; call ``remove()`` when done.
public struct TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates the directory (mode 0700, as `mkdtemp` makes it).
    public init() throws {
        var template = Array((NSTemporaryDirectory() + "/webapp-launch-cli-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw SubprocessError(message: "mkdtemp failed: \(errno)") }
        url = URL(fileURLWithPath: String(cString: created))
    }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Deletes the directory and everything in it.
    public func remove() { try? FileManager.default.removeItem(at: url) }
}

