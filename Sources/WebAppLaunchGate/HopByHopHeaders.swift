import HTTPTypes

/// The connection-specific ("hop-by-hop") fields of RFC 9110 §7.6.1, which a proxy must not
/// forward: they describe one connection, not the message.
///
/// Removed in both directions: `Connection` and every field it names, `Keep-Alive`,
/// `Proxy-Connection`, `TE`, `Trailer`, `Transfer-Encoding`, `Upgrade`, `Proxy-Authenticate`
/// and `Proxy-Authorization`. Forwarding them would let a client steer the gate's own
/// connection to the upstream (an `Upgrade` smuggled through, a `Connection: X-WebApp-Launch-…`
/// trick, or framing headers that disagree with the body the gate actually sends).
public enum HopByHopHeaders {
    /// The fixed hop-by-hop names, lower-case.
    public static let names: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer",
        "transfer-encoding", "upgrade", "proxy-authenticate", "proxy-authorization",
    ]

    /// Whether a `Connection` option is one of the fixed ``names``, in any case (compared
    /// byte by byte, as ``Filter/isHopByHop(_:)`` compares lower-cased names: `_` is not `-`).
    static func isFixedName(_ token: Substring.UTF8View) -> Bool {
        fixedNameBytes.contains { name in
            name.count == token.count && zip(name, token).allSatisfy { $0 == lowerCased($1) }
        }
    }

    private static let fixedNameBytes: [[UInt8]] = names.map { Array($0.utf8) }

    /// An ASCII byte in lower case (other bytes as they are).
    static func lowerCased(_ byte: UInt8) -> UInt8 {
        UInt8(ascii: "A")...UInt8(ascii: "Z") ~= byte ? byte + 0x20 : byte
    }

    /// A `Connection` option without the spaces and tabs around it.
    static func trimmed(_ token: Substring.UTF8View) -> Substring.UTF8View {
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = token.firstIndex(where: { !isBlank($0) }), let last = token.lastIndex(where: { !isBlank($0) }) else {
            return token[token.endIndex...]
        }
        return token[first...last]
    }

    /// Which fields of one message are hop-by-hop: the fixed names, and those its `Connection`
    /// fields name. One rule for a request's fields and a response's, checked per field in the
    /// one pass that copies them.
    public struct Filter: Sendable {
        /// The options the message's `Connection` fields name, lower-case (usually none).
        private var named: [String] = []

        /// The filter for a message whose `Connection` fields have these values.
        /// - Parameter connectionValues: Every `Connection` field value of the message.
        public init(connectionValues: some Sequence<String>) {
            for value in connectionValues {
                // Byte by byte, in place: the usual `Connection: keep-alive` allocates nothing.
                let bytes = value.utf8
                var start = bytes.startIndex
                while start < bytes.endIndex {
                    let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.endIndex
                    let token = HopByHopHeaders.trimmed(bytes[start..<end])
                    // A fixed name is removed anyway: it is not kept.
                    if !token.isEmpty, !HopByHopHeaders.isFixedName(token) {
                        named.append(String(decoding: token.map(HopByHopHeaders.lowerCased), as: UTF8.self))
                    }
                    start = end < bytes.endIndex ? bytes.index(after: end) : end
                }
            }
        }

        /// The filter for a message with these fields.
        /// - Parameter fields: Its header fields.
        public init(_ fields: HTTPFields) {
            self.init(connectionValues: fields[values: .connection])
        }

        /// Whether a field of this message is hop-by-hop.
        /// - Parameter canonicalName: The field's lower-case name (``HTTPField/Name/canonicalName``).
        public func isHopByHop(_ canonicalName: String) -> Bool {
            HopByHopHeaders.names.contains(canonicalName) || (!named.isEmpty && named.contains(canonicalName))
        }
    }
}
