#ifndef CWEBAPPLAUNCH_BUILDINFO_H
#define CWEBAPPLAUNCH_BUILDINFO_H

/// The commit the binary was built from, as `scripts/release` passes it to the compiler
/// (`-Xcc -DWEBAPP_LAUNCH_COMMIT='"…"'`), or "unknown" for a build that did not say.
///
/// SwiftPM has no way to hand a value to Swift code at build time; a C preprocessor
/// definition is the one flag that carries a string, so this one function is C.
const char *webapp_launch_build_commit(void);

#endif
