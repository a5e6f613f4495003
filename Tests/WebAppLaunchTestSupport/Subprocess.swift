import Foundation
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a finished program ended and what it wrote.
public struct SubprocessResult: Sendable, CustomStringConvertible {
    /// The exit status, or 128 + the signal number when a signal ended it.
    public let status: Int32
    /// Everything written to standard output.
    public let standardOutput: String
    /// Everything written to standard error.
    public let standardError: String

    /// Standard error split into non-empty lines.
    public var errorLines: [Substring] { standardError.split(separator: "\n") }

    public var description: String { "exit \(status)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)" }
}

public struct SubprocessError: Error, CustomStringConvertible {
    /// What failed.
    public let message: String
    /// Creates an error.
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// Runs a program to completion on a blocking thread, outside the cooperative pool (see ``runSubprocessBlocking(_:_:input:environment:timeout:)``).
///
/// Tests run in parallel on Swift's cooperative pool, which has one thread per core (two,
/// here): a test that waited for a program on one of them would stall every other suite's
/// tasks (in-process servers, deadline watchers) for as long as the program runs. So the
/// wait never happens on the pool.
public func runSubprocess(
    _ path: String,
    _ arguments: [String],
    input: String? = nil,
    environment: [String: String] = [:],
    timeout: Duration = .seconds(20)
) async throws -> SubprocessResult {
    await subprocessSlots.acquire()
    defer { Task { await subprocessSlots.release() } }
    return try await offload { try runSubprocessBlocking(path, arguments, input: input, environment: environment, timeout: timeout) }
}

/// At most two programs run to completion at once (one per core): started all together,
/// the CLI suites' dozens of runs would take every core for seconds.
private let subprocessSlots = Slots(count: 2)

/// Runs a program to completion with `posix_spawn` and `waitpid`, feeding `input` to its
/// standard input and capturing standard output and standard error separately. Blocks the
/// calling thread: async code calls ``runSubprocess(_:_:input:environment:timeout:)``.
///
/// Foundation's `Process.waitUntilExit` can hang on Linux, so the tests do not use it. The
/// wait is bounded: a program still running after `timeout` is killed and an error thrown.
/// `environment` is added to the test process's own.
public func runSubprocessBlocking(
    _ path: String,
    _ arguments: [String],
    input: String? = nil,
    environment: [String: String] = [:],
    timeout: Duration = .seconds(20)
) throws -> SubprocessResult {
    let stdinPipe = try makePipe()
    let stdoutPipe = try makePipe()
    let stderrPipe = try makePipe()
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, stdinPipe.read, 0)
    posix_spawn_file_actions_adddup2(&actions, stdoutPipe.write, 1)
    posix_spawn_file_actions_adddup2(&actions, stderrPipe.write, 2)
    for fd in [stdinPipe.read, stdinPipe.write, stdoutPipe.read, stdoutPipe.write, stderrPipe.read, stderrPipe.write] {
        posix_spawn_file_actions_addclose(&actions, fd)
    }
    let spawned = spawn(path, arguments, environment: environment, actions: &actions)
    close(stdinPipe.read)
    close(stdoutPipe.write)
    close(stderrPipe.write)
    guard case .success(let pid) = spawned else {
        [stdinPipe.write, stdoutPipe.read, stderrPipe.read].forEach { close($0) }
        if case .failure(let error) = spawned { throw error }
        fatalError("unreachable")
    }
    // Inputs are a URL or a few JSON lines: far below the pipe buffer, so writing all of it
    // before reading cannot deadlock. EPIPE (the child did not read) is not an error here.
    if let input {
        let bytes = Array(input.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(stdinPipe.write, $0.baseAddress, $0.count) }
            if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { break }
        }
    }
    close(stdinPipe.write)

    let deadline = ContinuousClock.now + timeout
    var output = Data()
    var errorOutput = Data()
    var open: [(fd: Int32, isError: Bool)] = [(stdoutPipe.read, false), (stderrPipe.read, true)]
    var timedOut = false
    while !open.isEmpty {
        guard let remaining = milliseconds(until: deadline) else {
            timedOut = true
            break
        }
        let polled = open
        var fds = polled.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), remaining) > 0 else { continue }
        for (stream, entry) in zip(polled, fds) where entry.revents != 0 {
            let chunk = readChunk(stream.fd)
            if chunk.isEmpty {
                close(stream.fd)
                open.removeAll { $0.fd == stream.fd }
            } else if stream.isError {
                errorOutput.append(chunk)
            } else {
                output.append(chunk)
            }
        }
    }
    open.forEach { close($0.fd) }
    if timedOut {
        kill(pid, SIGKILL)
        _ = waitForExit(pid)
        throw SubprocessError(message: "\(path) \(arguments.joined(separator: " ")) did not finish within \(timeout)")
    }
    return SubprocessResult(
        status: waitForExit(pid),
        standardOutput: String(decoding: output, as: UTF8.self),
        standardError: String(decoding: errorOutput, as: UTF8.self)
    )
}

/// A program left running in the background (a server): its standard output is read line by
/// line on demand, its standard error goes to a file. It is killed when dropped unreaped.
public final class BackgroundSubprocess {
    /// The process id.
    public let pid: pid_t
    /// Where the program's standard error (its log) is written.
    public let standardErrorPath: String
    private var standardOutput: Int32
    private var buffered = Data()
    private var reaped = false

    /// Starts `path` with `arguments`; `environment` is added to the test process's own.
    public init(_ path: String, _ arguments: [String], environment: [String: String] = [:], standardErrorPath: String) throws {
        let stdoutPipe = try makePipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe.write, 1)
        posix_spawn_file_actions_addopen(&actions, 2, standardErrorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addclose(&actions, stdoutPipe.read)
        posix_spawn_file_actions_addclose(&actions, stdoutPipe.write)
        let spawned = spawn(path, arguments, environment: environment, actions: &actions)
        close(stdoutPipe.write)
        switch spawned {
        case .success(let pid):
            self.pid = pid
        case .failure(let error):
            close(stdoutPipe.read)
            throw error
        }
        self.standardOutput = stdoutPipe.read
        self.standardErrorPath = standardErrorPath
    }

    deinit {
        if !reaped {
            kill(pid, SIGKILL)
            _ = waitForExit(pid)
        }
        if standardOutput >= 0 { close(standardOutput) }
    }

    /// The program's log so far, for failure messages.
    public var standardError: String { (try? String(contentsOfFile: standardErrorPath, encoding: .utf8)) ?? "" }

    /// Reads standard output until a line satisfies `matches`, and returns that line.
    ///
    /// Waits between reads with `Task.sleep`, never in `poll`, so a program that is slow to
    /// start holds none of the cooperative pool's threads.
    /// - Throws: When the output ends, or `timeout` passes, first.
    public func firstLine(within timeout: Duration, where matches: (Substring) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        // Once past the deadline, standard output is read once more before giving up: on a
        // busy machine one sleep can outlast the whole timeout.
        var pastDeadline = false
        while true {
            while let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[buffered.startIndex..<newline], as: UTF8.self)
                buffered.removeSubrange(buffered.startIndex...newline)
                if matches(Substring(line)) { return line }
            }
            guard standardOutput >= 0, !pastDeadline else {
                throw SubprocessError(message: "no matching line on standard output within \(timeout); log:\n\(standardError)")
            }
            pastDeadline = ContinuousClock.now >= deadline
            var fds = [pollfd(fd: standardOutput, events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 1, 0) > 0 {
                let chunk = readChunk(standardOutput)
                if chunk.isEmpty {
                    close(standardOutput)
                    standardOutput = -1
                } else {
                    buffered.append(chunk)
                }
            } else if !pastDeadline {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    /// Sends `signal` and waits for the program to exit, sleeping as a task between looks.
    /// - Returns: The exit status (128 + signal number when a signal ended it).
    /// - Throws: When it is still running after `timeout` (it is then killed).
    public func stop(with signal: Int32 = SIGTERM, within timeout: Duration) async throws -> Int32 {
        kill(pid, signal)
        let deadline = ContinuousClock.now + timeout
        // Looked at once more after the deadline: on a busy machine one sleep can outlast the
        // whole timeout, and a program that did exit must not be reported as still running.
        while true {
            if let status = try reapIfExited() { return status }
            guard ContinuousClock.now < deadline else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try killAfter(timeout, signal: signal)
    }

    /// ``stop(with:within:)`` for a `deinit`, which cannot wait as a task: it blocks the
    /// calling thread.
    public func stopBlocking(with signal: Int32 = SIGTERM, within timeout: Duration) throws -> Int32 {
        kill(pid, signal)
        let deadline = ContinuousClock.now + timeout
        while true {  // as in stop(with:within:): looked at once more after the deadline
            if let status = try reapIfExited() { return status }
            guard ContinuousClock.now < deadline else { break }
            usleep(20_000)
        }
        return try killAfter(timeout, signal: signal)
    }

    /// The exit status if the program has exited (it is then reaped), `nil` if it still runs.
    private func reapIfExited() throws -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid {
            reaped = true
            return exitStatus(status)
        }
        if result == -1 && errno != EINTR {
            throw SubprocessError(message: "waitpid failed: \(errno)")
        }
        return nil
    }

    private func killAfter(_ timeout: Duration, signal: Int32) throws -> Int32 {
        // Its state and signal sets, for telling a stopped, blocking or ignoring program apart.
        let status = ((try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? "")
            .split(separator: "\n")
            .filter { ["State:", "SigQ:", "SigPnd:", "ShdPnd:", "SigBlk:", "SigIgn:", "SigCgt:"].contains(where: $0.hasPrefix) }
            .joined(separator: ", ")
        kill(pid, SIGKILL)
        _ = waitForExit(pid)
        reaped = true
        throw SubprocessError(message: "still running \(timeout) after signal \(signal) (\(status)); log:\n\(standardError)")
    }
}

/// A pipe (a socket pair) whose ends are close-on-exec from creation on: tests run in parallel, and a child spawned by another
/// test must not inherit this pipe (a stray copy of a write end keeps the reader from ever
/// seeing end-of-file). The child's own ends are `dup2`ed onto 0, 1 and 2, which clears the flag.
private func makePipe() throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
        throw SubprocessError(message: "socketpair failed: \(errno)")
    }
    return (fds[0], fds[1])
}

private func spawn(
    _ path: String,
    _ arguments: [String],
    environment: [String: String],
    actions: inout posix_spawn_file_actions_t
) -> Result<pid_t, SubprocessError> {
    let merged = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    // Nothing else crosses into the child: the test process also holds the sockets of other
    // tests' in-process servers, and a child's copy would keep a closed connection open.
    _ = spawnActionsCloseFrom(&actions, 3)
    // Nor the spawning thread's signal mask: Dispatch's worker threads (where tasks run) block
    // nearly every signal, and a child would inherit that, so SIGTERM stayed pending in it and
    // every stop waited out its timeout for SIGKILL. The child starts with no signal blocked
    // and the usual ones at their default action (the test process ignores SIGPIPE).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var unblocked = sigset_t()
    sigemptyset(&unblocked)
    posix_spawnattr_setsigmask(&attributes, &unblocked)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGCHLD, SIGUSR1, SIGUSR2] {
        sigaddset(&defaults, signal)
    }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let rc = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
    guard rc == 0 else { return .failure(SubprocessError(message: "cannot start \(path): error \(rc)")) }
    return .success(pid)
}

private func readChunk(_ fd: Int32) -> Data {
    var buffer = [UInt8](repeating: 0, count: 8192)
    while true {
        let count = read(fd, &buffer, buffer.count)
        if count > 0 { return Data(buffer[0..<count]) }
        if count < 0 && errno == EINTR { continue }
        return Data()
    }
}

private func waitForExit(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return exitStatus(status)
}

private func exitStatus(_ status: Int32) -> Int32 {
    (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}

/// Milliseconds left until `deadline` for `poll`, or `nil` once it has passed.
private func milliseconds(until deadline: ContinuousClock.Instant) -> Int32? {
    let left = ContinuousClock.now.duration(to: deadline)
    guard left > .zero else { return nil }
    let (seconds, attoseconds) = left.components
    return Int32(min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, 60_000))
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which the Glibc module does
/// not import: closes every descriptor from `lowest` up in the child.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func spawnActionsCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) -> Int32

/// Runs blocking work on a thread outside Swift's cooperative pool, so it never occupies one
/// of the (two, on this machine) threads that in-process servers under test need.
///
/// The threads live as long as the test process (a pool of 16) instead of a fresh `Thread`
/// per call. (This did not cure the intermittent stall scripts/test describes: it recurred
/// with every pool thread idle.)
public func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await blockingThreads.runIfActive(work)
}

/// Starts blocking work on a pool thread without waiting for it (for `defer` and `deinit`,
/// which cannot wait).
public func offloadDetached(_ work: @escaping @Sendable () -> Void) {
    blockingThreads.submit { state in
        if case .active = state { work() }
    }
}

/// The pool: 16 threads, as many blocking calls as can run at once (programs to completion,
/// at most two, see ``runSubprocess(_:_:input:environment:timeout:)``; curl batches; cluster
/// starts and stops; socket waits); none of them waits for another.
private let blockingThreads: NIOThreadPool = {
    let pool = NIOThreadPool(numberOfThreads: 16)
    pool.start()
    return pool
}()
