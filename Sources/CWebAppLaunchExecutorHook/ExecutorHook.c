#include "CWebAppLaunchExecutorHook.h"

#include <stddef.h>

// Defined by libswift_Concurrency, linked statically or dynamically.
extern void *swift_task_enqueueGlobal_hook;

bool webapp_launch_install_enqueue_global_hook(void *hook) {
    void *expected = NULL;
    return __atomic_compare_exchange_n(&swift_task_enqueueGlobal_hook, &expected, hook, false, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}
