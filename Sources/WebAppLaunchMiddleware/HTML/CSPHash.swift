import Foundation
import WebAppLaunch

/// Content-Security-Policy hash sources for inline scripts and styles.
public enum CSPHash {
    /// The source expression that allows exactly this inline text.
    /// - Parameter text: The script or style, byte for byte as served.
    /// - Returns: `'sha256-<standard base64 of SHA-256(text)>'`.
    public static func source(for text: String) -> String {
        let digest = (try? SHA256.hash(Array(text.utf8))) ?? []
        return "'sha256-\(Data(digest).base64EncodedString())'"
    }
}
