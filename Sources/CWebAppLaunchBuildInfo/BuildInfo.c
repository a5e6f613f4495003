#include "CWebAppLaunchBuildInfo.h"

#ifndef WEBAPP_LAUNCH_COMMIT
#define WEBAPP_LAUNCH_COMMIT "unknown"
#endif

const char *webapp_launch_build_commit(void) {
    return WEBAPP_LAUNCH_COMMIT;
}
