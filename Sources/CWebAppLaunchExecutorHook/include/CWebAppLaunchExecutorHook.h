#ifndef CWEBAPPLAUNCH_EXECUTORHOOK_H
#define CWEBAPPLAUNCH_EXECUTORHOOK_H

#include <stdbool.h>

/// Installs `hook` as the Swift concurrency runtime's global-enqueue hook
/// (`swift_task_enqueueGlobal_hook`) if no hook is installed yet, atomically; returns whether
/// it did. The hook is reached by the linker rather than by `dlsym`.
///
/// SwiftNIO installs its event loops as Swift Concurrency's global executor by looking the
/// hook up with `dlsym`. In a binary linked with `--static-swift-stdlib` the runtime's symbols
/// are not in the dynamic symbol table (the static link passes `--exclude-libs ALL`), so that
/// lookup finds nothing and every task quietly runs on Dispatch's threads instead. A reference
/// from C is resolved at link time in both link modes.
bool webapp_launch_install_enqueue_global_hook(void *_Nonnull hook);

#endif
