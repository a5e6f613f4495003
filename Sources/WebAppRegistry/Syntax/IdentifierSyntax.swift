/// The one rule for identifiers that travel in tokens, keyrings and cookies: app ids and
/// key ids (kids). 1 to 64 bytes of `[A-Za-z0-9._-]`, compared byte for byte.
///
/// Every parser of the package (registry, token layout, keyring, session payload) checks
/// identifiers here, so the rule cannot drift between the minter and the verifier.
package enum IdentifierSyntax {
    /// The longest identifier, in bytes.
    package static let maximumLength = 64

    // Concrete types, not `some Collection<UInt8>`: the verifier checks a token's app id on
    // every launch, and a generic function called from another module runs unspecialised
    // (a heap-boxed iterator step per byte, 40 allocations per check).

    /// Whether a text is an identifier.
    package static func isValid(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count <= maximumLength && bytes.allSatisfy(isIdentifierByte)
    }

    /// Whether bytes spell an identifier (for parsers that hold raw bytes).
    package static func isValid(bytes: ArraySlice<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.count <= maximumLength && bytes.allSatisfy(isIdentifierByte)
    }

    /// Whether borrowed bytes spell an identifier (the verifier reads tokens in place):
    /// one table load per byte, and one check after the loop.
    package static func isValid(bytes: UnsafeRawBufferPointer) -> Bool {
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        return identifierTable.withUnsafeBufferPointer { table in
            var allowed: UInt8 = 1
            for byte in bytes { allowed &= table[Int(byte)] }
            return allowed == 1
        }
    }

    /// 1 for each byte ``isIdentifierByte(_:)`` allows, 0 for every other: the same rule.
    private static let identifierTable: [UInt8] = (0...255).map { isIdentifierByte(UInt8($0)) ? 1 : 0 }

    /// Whether one byte may appear in an identifier.
    @inlinable
    package static func isIdentifierByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}
