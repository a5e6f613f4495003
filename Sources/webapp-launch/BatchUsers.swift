import WebAppLaunch

/// The users of a batch of launches (`mint --count`): the given user for every launch, or,
/// with `--distinct-users`, a different valid user per launch derived from it.
///
/// Load and fault tests need launches that are all different people, so that a log-hygiene
/// check can search the server's output for every access token, name and KVNR of the run;
/// benchmarks need the same typical user throughout, so every request costs the same.
struct BatchUsers {
    /// The user named on the command line.
    let base: LaunchUser
    /// Whether each launch gets a user of its own.
    let distinct: Bool
    /// A random tag of this run, part of every derived token and name, so two batches (two
    /// runs of `mint`) never share a user.
    let run = String(UInt32.random(in: 0..<UInt32.max), radix: 36)
    // Where this run's KVNR serials start, so two runs rarely share a KVNR either.
    private let serialOffset = Int.random(in: 0..<100_000_000)

    /// The user of launch number `index` (0-based).
    func user(_ index: Int) -> LaunchUser {
        guard distinct else { return base }
        return LaunchUser(
            accessToken: "\(base.accessToken).\(run).\(index)",
            firstName: "\(base.firstName)\(run)x\(index)",
            lastName: "\(base.lastName)\(run)x\(index)",
            kvnumber: Self.kvnr(serial: index + serialOffset)
        )
    }

    /// A valid KVNR for a serial number: a letter, eight digits and the check digit
    /// (SPEC.md §10.1), different for serials up to 26 × 10⁸.
    static func kvnr(serial: Int) -> String {
        let letter = UInt8(ascii: "A") + UInt8(serial % 26)
        var number = (serial / 26) % 100_000_000
        var digits = [Int](repeating: 0, count: 8)
        for position in stride(from: 7, through: 0, by: -1) {
            digits[position] = number % 10
            number /= 10
        }
        // The check digit exists for every letter and eight digits; `nil` only for bad input.
        let check = KVNR.checkDigit(letter: letter, digits: digits)!
        return String(UnicodeScalar(letter)) + digits.map(String.init).joined() + String(check)
    }
}
