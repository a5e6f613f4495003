import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to completion with `posix_spawn` and `waitpid`, returning its exit status
/// and standard output. Foundation's `Process.waitUntilExit` can hang on Linux when the
/// child leaves a daemon behind (as `pg_ctl start` does), so the tests do not use it.
func runSubprocess(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
    var pipe: [Int32] = [0, 0]
    // Close-on-exec, atomically: a child spawned concurrently by another test must not
    // inherit the write end, or this read would never see end-of-file.
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pipe) == 0 else {
        throw SubprocessError(message: "socketpair failed")
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
    posix_spawn_file_actions_addclose(&actions, pipe[0])
    posix_spawn_file_actions_addclose(&actions, pipe[1])
    var merged = ProcessInfo.processInfo.environment
    for (key, value) in environment { merged[key] = value }
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    // Nothing else crosses into the child: the test process holds the sockets of in-process
    // servers, and a child's copy (a daemon like postgres lives on) would keep them open.
    _ = spawnActionsCloseFrom(&actions, 3)
    let rc = posix_spawn(&pid, path, &actions, nil, argv, envp)
    close(pipe[1])
    guard rc == 0 else {
        close(pipe[0])
        throw SubprocessError(message: "cannot start \(path): \(rc)")
    }
    var output = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(pipe[0], &buffer, buffer.count)
        if count > 0 { output.append(contentsOf: buffer[0..<count]) } else if count == 0 || errno != EINTR { break }
    }
    close(pipe[0])
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return (exitStatus, String(decoding: output, as: UTF8.self))
}

/// Runs blocking work on its own thread, so it never occupies one of the (two, on this
/// machine) threads of Swift's cooperative pool that the in-process servers under test need.
func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

struct SubprocessError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which the Glibc module does
/// not import: closes every descriptor from `lowest` up in the child.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
func spawnActionsCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) -> Int32
