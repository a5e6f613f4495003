internal import CWebAppLaunchSIMD

/// Unpadded base64url (RFC 4648 §5), strict in what it accepts.
///
/// A token has exactly one textual form: no padding, no standard-alphabet `+` or `/`, no
/// whitespace, and the unused bits of the last character must be zero. Anything else is
/// rejected, so two different strings can never carry the same token bytes.
@_spi(Testing) public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0xFF marks bytes outside the alphabet.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Four 256-entry tables, one per position in a quad, holding each character's six bits
    /// already shifted into place (position 0 by 18, 1 by 12, 2 by 6, 3 by 0), or
    /// ``invalidBit`` for a byte outside the alphabet. A quad decodes with four loads and
    /// three ORs into one 24-bit value, and a single compare rejects any bad character.
    private static let shiftedTable: [UInt32] = {
        var table = [UInt32](repeating: invalidBit, count: 4 * 256)
        for (index, byte) in alphabet.enumerated() {
            for position in 0..<4 {
                table[position * 256 + Int(byte)] = UInt32(index) << (18 - 6 * UInt32(position))
            }
        }
        return table
    }()

    /// Set in ``shiftedTable`` for bytes outside the alphabet; above any 24-bit value.
    private static let invalidBit: UInt32 = 1 << 24

    /// For every 12-bit value, its two characters as they lie in memory (first character in
    /// the lower address): encoding writes two characters per load and store.
    private static let pairTable: [UInt16] = (0..<4096).map { value in
        (UInt16(alphabet[value >> 6]) | UInt16(alphabet[value & 63]) << 8).littleEndian
    }

    /// Encodes bytes without padding.
    /// - Parameter bytes: The bytes.
    /// - Returns: The base64url text.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        if let text = bytes.withContiguousStorageIfAvailable({ encode(raw: UnsafeRawBufferPointer($0)) }) { return text }
        return Array(bytes).withUnsafeBytes { encode(raw: $0) }
    }

    /// Encodes contiguous bytes (the hot path of minting: a token is over a kilobyte).
    /// `vectorised: false` keeps to the table loop (tests hold it to the reference too,
    /// as it is all a CPU without AVX2 runs).
    static func encode(raw input: UnsafeRawBufferPointer, vectorised: Bool = true) -> String {
        let count = input.count
        let outputCount = (count * 4 + 2) / 3
        guard outputCount > 0 else { return "" }
        return String(unsafeUninitializedCapacity: outputCount) { output in
            let out = UnsafeMutableRawPointer(output.baseAddress!)
            // Whole 24-byte blocks first, with AVX2 where the CPU has it; the rest in pairs.
            var index = vectorised ? webapplaunch_base64url_encode_blocks(input.baseAddress!.assumingMemoryBound(to: UInt8.self), count, output.baseAddress!) : 0
            var written = index / 3 * 4
            return pairTable.withUnsafeBufferPointer { pairs in
                while index + 3 <= count {
                    let value = Int(input[index]) << 16 | Int(input[index + 1]) << 8 | Int(input[index + 2])
                    out.storeBytes(of: pairs[value >> 12], toByteOffset: written, as: UInt16.self)
                    out.storeBytes(of: pairs[value & 0xFFF], toByteOffset: written + 2, as: UInt16.self)
                    written += 4
                    index += 3
                }
                // One or two bytes left: two or three characters, the unused bits zero.
                let remaining = count - index
                if remaining > 0 {
                    let second = remaining == 2 ? Int(input[index + 1]) : 0
                    let value = Int(input[index]) << 16 | second << 8
                    out.storeBytes(of: pairs[value >> 12], toByteOffset: written, as: UInt16.self)
                    written += 2
                    if remaining == 2 {
                        output[written] = alphabet[value >> 6 & 63]
                        written += 1
                    }
                }
                return written
            }
        }
    }

    /// Whether encoding and decoding use the vector kernels on this CPU (tests check they
    /// exercised them).
    static var usesVectorKernels: Bool { webapplaunch_base64url_vectorised() != 0 }

    /// Decodes strict unpadded base64url.
    /// - Parameter text: The text.
    /// - Returns: The bytes, or `nil` for any character outside the alphabet, padding, an
    ///   impossible length, or non-zero trailing bits.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var text = String(text)
        return text.withUTF8 { decode(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// Decodes strict unpadded base64url from raw UTF-8 bytes.
    /// - Parameter utf8: The text's bytes.
    /// - Returns: The bytes, or `nil` when the text is not canonical base64url.
    public static func decode(utf8 input: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let outputCount = decodedByteCount(textCount: input.count) else { return nil }
        var decoded = false
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { output, initialised in
            decoded = decode(utf8: input, into: UnsafeMutableRawBufferPointer(output))
            initialised = decoded ? outputCount : 0
        }
        return decoded ? output : nil
    }

    /// How many bytes `count` characters of unpadded base64url decode to.
    /// - Parameter count: The text's length.
    /// - Returns: The length, or `nil` when no canonical text has `count` characters.
    static func decodedByteCount(textCount count: Int) -> Int? {
        let remainder = count % 4
        guard count >= 0, remainder != 1 else { return nil }
        return count / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
    }

    /// Decodes strict unpadded base64url into a buffer the caller owns (the hot path of
    /// verification, which reads the token in place and frees it when done).
    /// - Parameters:
    ///   - input: The text's bytes.
    ///   - output: Exactly ``decodedByteCount(textCount:)`` bytes.
    ///   - vectorised: `false` keeps to the table loops (for tests: all a CPU without AVX2 runs).
    /// - Returns: `false` when the text is not canonical base64url (`output` then holds
    ///   garbage and must not be read).
    static func decode(utf8 input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, vectorised: Bool = true) -> Bool {
        let count = input.count
        let remainder = count % 4
        guard let outputCount = decodedByteCount(textCount: count), output.count == outputCount else { return false }
        guard outputCount > 0, let text = input.baseAddress, let start = output.baseAddress else { return count == 0 }
        let bytes = text.assumingMemoryBound(to: UInt8.self)
        let out = start.assumingMemoryBound(to: UInt8.self)
        var written = 0
        var index = 0
        var invalid: UInt32 = 0
        // Whole blocks first, with AVX-512 VBMI or AVX2 where the CPU has it (a token is over
        // a kilobyte of text); the quads left go through the table loop.
        var vectorInvalid: Int32 = 0
        index = vectorised ? webapplaunch_base64url_decode_blocks(bytes, count, out, outputCount, &vectorInvalid) : 0
        written = index / 4 * 3
        if vectorInvalid != 0 { return false }
        shiftedTable.withUnsafeBufferPointer { shifted in
            while index + 4 <= count {
                let value = shifted[Int(bytes[index])] | shifted[256 + Int(bytes[index + 1])]
                    | shifted[512 + Int(bytes[index + 2])] | shifted[768 + Int(bytes[index + 3])]
                // Checked once at the end: a bad quad only writes bytes that are then
                // discarded, and the loop stays free of branches on the data.
                invalid |= value
                out[written] = UInt8(truncatingIfNeeded: value >> 16)
                out[written + 1] = UInt8(truncatingIfNeeded: value >> 8)
                out[written + 2] = UInt8(truncatingIfNeeded: value)
                written += 3
                index += 4
            }
        }
        guard invalid & Self.invalidBit == 0 else { return false }
        return decodeTable.withUnsafeBufferPointer { table in
            if remainder == 2 {
                let a = table[Int(bytes[index])], b = table[Int(bytes[index + 1])]
                guard (a | b) & 0xC0 == 0, b & 0x0F == 0 else { return false }
                out[written] = a << 2 | b >> 4
            } else if remainder == 3 {
                let a = table[Int(bytes[index])], b = table[Int(bytes[index + 1])], c = table[Int(bytes[index + 2])]
                guard (a | b | c) & 0xC0 == 0, c & 0x03 == 0 else { return false }
                out[written] = a << 2 | b >> 4
                out[written + 1] = b << 4 | c >> 2
            }
            return true
        }
    }
}
