/// The scalars a first or last name may hold, and the spaces it may not start or end with
/// (SPEC.md §10.3).
///
/// The allowed set is a fixed table derived from Unicode 14.0.0 (`SPEC.name-scalars.txt`,
/// embedded in `NameScalars+Table.swift`), not the runtime's Unicode data: a verifier built
/// on a newer Unicode would otherwise accept scalars (U+1FAE8, U+323B0, …) that an older one
/// calls unassigned, and two conforming verifiers would disagree about the same token. Every
/// allowed scalar exists in Unicode 14.0, so, by Unicode's normalization stability policy,
/// any NFC implementation of 14.0 or later gives the same answer for a name that passes here.
enum NameScalars {
    /// Whether a scalar may appear in a name: it lies in one of the table's ranges.
    static func isAllowed(_ value: UInt32) -> Bool {
        // Binary search for the last range whose lower bound is at most `value`.
        var low = 0
        var high = rangeBounds.count / 2
        while low < high {
            let middle = (low + high) / 2
            if rangeBounds[2 * middle] <= value { low = middle + 1 } else { high = middle }
        }
        return low > 0 && value <= rangeBounds[2 * (low - 1) + 1]
    }

    /// The allowed scalars with the White_Space property (Unicode 14.0): a name must not start
    /// or end with one. (The other White_Space scalars are controls or separators, never
    /// allowed at all.)
    static func isEdgeSpace(_ value: UInt32) -> Bool {
        switch value {
        case 0x0020, 0x00A0, 0x1680, 0x2000...0x200A, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }
}
