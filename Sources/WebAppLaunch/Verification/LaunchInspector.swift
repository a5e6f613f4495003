/// Reads a token's clear header without verifying anything, for debugging (`webapp-launch
/// inspect`). Never decrypts, and never a basis for a decision: an attacker controls
/// every byte it returns.
public enum LaunchInspector {
    /// Decodes the header of a token or of a launch URL.
    /// - Parameter tokenOrURL: The token, or a URL carrying `launch=`.
    /// - Returns: The header, unverified.
    /// - Throws: ``LaunchError`` when the text is not a structurally valid token.
    public static func unverifiedHeader(of tokenOrURL: String) throws(LaunchError) -> LaunchHeader {
        var token = Substring(tokenOrURL)
        let bytes = tokenOrURL.utf8
        if let questionMark = bytes.firstIndex(of: UInt8(ascii: "?")) {  // by byte, as the verifier
            token = try LaunchParameters(query: Substring(bytes[bytes.index(after: questionMark)...])).token
        }
        guard let blob = Base64URL.decode(token) else {
            throw LaunchError(.malformed, "the token is not canonical unpadded base64url")
        }
        return try TokenLayout.parse(blob).header
    }
}
