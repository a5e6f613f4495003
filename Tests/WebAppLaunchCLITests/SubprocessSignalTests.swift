import Foundation
import Testing
import WebAppLaunchTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The programs the suites start (the CLI, the OpenID provider, nginx, curl, PostgreSQL's
/// tools) must not inherit the signal mask of the thread that started them: Dispatch's worker
/// threads, where tasks run, block nearly every signal, and a child that inherited that let
/// SIGTERM sit pending until its stop timed out and SIGKILL came.
@Suite("Programs started by the tests get no blocked signal")
struct SubprocessSignalTests {
    /// A kernel signal set from /proc/self/status (a hexadecimal mask, bit n-1 for signal n).
    private static func mask(_ field: String, in status: String) throws -> UInt64 {
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("\(field):") })
        return try #require(UInt64(line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces), radix: 16))
    }

    @Test("a program run to completion starts with no signal blocked and SIGTERM, SIGINT and SIGPIPE at their defaults")
    func runToCompletion() async throws {
        let result = try await runSubprocess("/bin/cat", ["/proc/self/status"])
        #expect(result.status == 0)
        #expect(try Self.mask("SigBlk", in: result.standardOutput) == 0)
        let ignored = try Self.mask("SigIgn", in: result.standardOutput)
        for signal in [SIGTERM, SIGINT, SIGPIPE] {
            #expect(ignored & (1 << UInt64(signal - 1)) == 0, "signal \(signal) is ignored")
        }
    }

    @Test("a program started in the background from a task ends at once on SIGTERM")
    func backgroundStopsOnSIGTERM() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sleeper = try BackgroundSubprocess("/bin/sleep", ["30"], standardErrorPath: directory.path("sleep.log"))
        // Within 5 s, or the stop kills it and throws; the status says SIGTERM ended it.
        let status = try await sleeper.stop(with: SIGTERM, within: .seconds(5))
        #expect(status == 128 + SIGTERM)
    }
}
