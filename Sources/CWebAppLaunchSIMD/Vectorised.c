#include "CWebAppLaunchSIMD.h"

int webapplaunch_base64url_vectorised(void) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}
