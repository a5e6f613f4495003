import Foundation

/// The limits and character rules for the four claims, shared by signer and verifier so the
/// two can never disagree about what is valid (SPEC.md, "Claims").
enum ClaimRules {
    /// Longest access token, in bytes.
    static let maximumAccessTokenBytes = 8192
    /// Longest name (first or last), in UTF-8 bytes after NFC normalisation.
    static let maximumNameBytes = 256

    /// Access tokens are visible ASCII without spaces (RFC 6749's VSCHAR minus space).
    static func isValidAccessToken(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.count <= maximumAccessTokenBytes && bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// A name is non-empty, at most 256 bytes, contains no control or format characters
    /// (no bidi overrides, no zero-width tricks) and is already in NFC.
    static func isValidName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= maximumNameBytes else { return false }
        for scalar in name.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                return false
            default:
                continue
            }
        }
        guard name.unicodeScalars.first?.properties.isWhitespace == false,
              name.unicodeScalars.last?.properties.isWhitespace == false
        else { return false }
        return bytes.elementsEqual(name.precomposedStringWithCanonicalMapping.utf8)
    }

    /// The NFC form of a name, as the signer mints it.
    static func normalisedName(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping
    }
}
