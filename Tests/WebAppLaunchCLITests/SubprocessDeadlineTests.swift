import Foundation
import Testing
import WebAppLaunchTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The test support's waits for a program look once more after their deadline: on this busy
/// two-core machine one sleep can outlast a whole timeout, and a program that had exited, or
/// had written the line waited for, was reported as still running. A zero timeout makes the
/// deadline pass before the first sleep, so each test fails if that last look is missing.
@Suite("Waits for a program look once more after their deadline")
struct SubprocessDeadlineTests {
    /// Waits (bounded, 10 s) until `pid` has exited and is a zombie, not yet reaped.
    private static func waitUntilExited(_ pid: pid_t) async throws {
        for _ in 0..<1000 {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            if stat.split(separator: ")").last?.split(separator: " ").first == "Z" { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("process \(pid) did not exit within 10 s")
    }

    /// Starts `path` and returns once it has exited (unreaped), its output left in the pipe.
    private static func exited(_ path: String, _ arguments: [String], in directory: TemporaryDirectory) async throws -> BackgroundSubprocess {
        let program = try BackgroundSubprocess(path, arguments, standardErrorPath: directory.path("stderr.log"))
        try await waitUntilExited(program.pid)
        return program
    }

    @Test("a program that has already exited is reported with its status, not as still running")
    func stopAfterExit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let program = try await Self.exited("/bin/sh", ["-c", "exit 3"], in: directory)
        #expect(try await program.stop(within: .zero) == 3)
    }

    @Test("a line already written is found even when the timeout has passed")
    func lineAfterDeadline() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let program = try await Self.exited("/bin/echo", ["listening on 127.0.0.1:8080"], in: directory)
        let line = try await program.firstLine(within: .zero) { $0.hasPrefix("listening on") }
        #expect(line == "listening on 127.0.0.1:8080")
    }

    @Test("a program that ends without the line, or runs on without writing it, fails the wait")
    func missingLineFails() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ended = try await Self.exited("/bin/echo", ["something else"], in: directory)
        await #expect(throws: SubprocessError.self) {
            _ = try await ended.firstLine(within: .seconds(1)) { $0.hasPrefix("listening on") }
        }
        let silent = try BackgroundSubprocess("/bin/sleep", ["30"], standardErrorPath: directory.path("sleep.log"))
        await #expect(throws: SubprocessError.self) {
            _ = try await silent.firstLine(within: .milliseconds(200)) { $0.hasPrefix("listening on") }
        }
        #expect(try await silent.stop(within: .seconds(5)) == 128 + SIGTERM)
    }
}
