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
    static func isFixedName(_ token: Substring) -> Bool {
        fixedNameBytes.contains { name in
            name.count == token.utf8.count && zip(name, token.utf8).allSatisfy { lowerCase, byte in
                lowerCase == (UInt8(ascii: "A")...UInt8(ascii: "Z") ~= byte ? byte + 0x20 : byte)
            }
        }
    }

    private static let fixedNameBytes: [[UInt8]] = names.map { Array($0.utf8) }

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
                for option in value.split(separator: ",") {
                    let token = option.trimmingCharacters(in: .whitespaces)
                    // A fixed name (`keep-alive`, in nearly every message) is removed anyway:
                    // it is not kept, so the usual `Connection` costs no allocation.
                    if token.isEmpty || HopByHopHeaders.isFixedName(token) { continue }
                    named.append(token.lowercased())
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

extension Substring {
    fileprivate func trimmingCharacters(in set: TrimSet) -> Substring {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return slice
    }

    fileprivate enum TrimSet { case whitespaces }
}
