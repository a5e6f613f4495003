import CWebAppLaunchExecutorHook
import NIOCore
import NIOPosix

/// Makes the shared event loops (`MultiThreadedEventLoopGroup.singleton`) Swift Concurrency's
/// global executor, so a task resumes on the thread its connection's I/O just ran on instead of
/// hopping to Dispatch's threads and back, and the process runs one pool of threads, sized by
/// `--event-loops`.
///
/// SwiftNIO's own installer finds the runtime's hook with `dlsym`, which finds nothing in the
/// release binary (the Swift runtime linked statically, its symbols kept out of the dynamic
/// symbol table), and it returns `false` without a word: every task of the shipped binary ran
/// on Dispatch's threads while the dynamically linked builds ran them on the event loops. So
/// when it fails, the same hook is installed through the symbol the linker resolves
/// (`CWebAppLaunchExecutorHook`), and the build line in the log says which executor runs tasks.
enum EventLoopExecutor {
    /// Whether tasks run on the event loops: installed on first use, which `main` makes before
    /// the command starts any task of its own (a static `let` is initialised once, atomically).
    static let isInstalled: Bool = install()

    /// The runtime's hook type: the job, and the enqueue it replaces.
    private typealias EnqueueGlobal = @convention(thin) (UnownedJob, @convention(thin) (UnownedJob) -> Void) -> Void

    private static func install() -> Bool {
        if NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() {
            return true
        }
        // As SwiftNIO's hook does: the loop whose thread enqueues, if it is one of the shared
        // group's (no thread switch), else the group's next.
        let enqueue: EnqueueGlobal = { job, _ in
            MultiThreadedEventLoopGroup.singleton.any().enqueue(ExecutorJob(job))
        }
        return withUnsafePointer(to: enqueue) { pointer in
            pointer.withMemoryRebound(to: UnsafeMutableRawPointer.self, capacity: 1) { hook in
                webapp_launch_install_enqueue_global_hook(hook.pointee)
            }
        }
    }
}
