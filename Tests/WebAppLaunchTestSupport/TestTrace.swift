import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Breadcrumbs for a test that might wait forever: each line names the test and the step it
/// reached, so when a run stalls, the last line of each unfinished test says where it waits.
///
/// Off unless `WEBAPP_LAUNCH_TEST_TRACE` names a file (`scripts/test` sets it and prints the
/// last lines of the tests that did not finish). Lines are appended with one `write` each, so
/// lines from concurrent tests never interleave mid-line.
public enum TestTrace {
    /// The environment variable naming the trace file.
    public static let variable = "WEBAPP_LAUNCH_TEST_TRACE"

    private static let descriptor: Int32? = {
        guard let path = ProcessInfo.processInfo.environment[variable], !path.isEmpty else { return nil }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        return fd >= 0 ? fd : nil
    }()

    /// Records that the current test reached `step`.
    public static func note(_ step: @autoclosure () -> String) {
        guard descriptor != nil else { return }
        _ = executorWatch
        append("\(Test.current.map { $0.displayName ?? $0.name } ?? "(no test)") | \(step())")
    }

    private static func append(_ text: String) {
        guard let descriptor else { return }
        let line = Array("\(String(format: "%.3f", Date().timeIntervalSince1970)) \(text)\n".utf8)
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// Each thread of this process as name:state:kernel-wait (from /proc), for telling
    /// blocked threads from missing ones.
    private static func threadStates() -> String {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.sorted().map { id in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            let stat = (try? String(contentsOfFile: "/proc/self/task/\(id)/stat", encoding: .utf8)) ?? ""
            let state = stat.split(separator: ")").last?.split(separator: " ").first.map(String.init) ?? "?"
            let wait = (try? String(contentsOfFile: "/proc/self/task/\(id)/wchan", encoding: .utf8)) ?? "?"
            return "\(name):\(state):\(wait)"
        }.joined(separator: ", ")
    }

    /// Whether a task started by the watch has run.
    private final class Ran: Sendable {
        let flag = Atomic(false)
    }

    /// A thread outside Swift's executor that starts a task every 2 s and notes it when the
    /// task has not run 2 s later: a stall with every thread idle is then told apart from
    /// tests that wait on each other (the executor runs) or an executor that no longer runs
    /// anything.
    private static let executorWatch: Void = {
        Thread.detachNewThread {
            var stalledSince: Date?
            while true {
                let ran = Ran()
                Task.detached { ran.flag.store(true, ordering: .relaxed) }
                Thread.sleep(forTimeInterval: 2)
                if ran.flag.load(ordering: .relaxed) {
                    if let since = stalledSince {
                        append("executor | runs again after \(Int(Date().timeIntervalSince(since))) s")
                        stalledSince = nil
                    }
                } else if stalledSince == nil {
                    stalledSince = Date()
                    append("executor | a task started 2 s ago has not run; threads: \(threadStates())")
                }
            }
        }
    }()
}
