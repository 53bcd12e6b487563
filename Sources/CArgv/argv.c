/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CommandLine.arguments without the Swift runtime's /proc/self/maps scan (issue 24).
 *
 * Swift's stdlib asks `_swift_stdlib_getUnsafeArgvArgc` for argv. On Linux the runtime's own
 * definition (CommandLine.cpp in libswiftCore.a) comes with a static constructor that finds
 * argv by parsing /proc/self/maps at every start of the helper, before `main` (its cost:
 * bench/README.md#start-up-and-the-write-path-issue-24-2026-12-04). glibc passes (argc, argv,
 * envp) to every function of the executable's .init_array, so argv is at hand without it.
 *
 * Defining the symbol here, in an object of the link, means the linker never takes
 * CommandLine.cpp.o out of the static libswiftCore.a (nothing else of it is referenced), so its
 * constructor is not in the binary at all. If a later toolchain needs another symbol of that
 * object, the link fails with a duplicate definition: loud, never a silent second argv. With a
 * shared libswiftCore the runtime's constructor runs as before and either definition gives
 * the same argv.
 *
 * The stdlib declares the function with @_silgen_name, so it is called with Swift's calling
 * convention: clang's swiftcall (SwiftPM builds C targets with the toolchain's clang).
 */
#include <stddef.h>

static int saved_argc;
static char **saved_argv;
static char *no_arguments[] = { NULL };

static void capture(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argv != NULL && argc >= 0) {
		saved_argc = argc;
		saved_argv = argv;
	}
}

/* Runs before Swift's main, with what the kernel put on the stack (glibc's call_init). */
__attribute__((section(".init_array"), used)) static void (*const capture_at_start)(int, char **, char **) = capture;

__attribute__((swiftcall, visibility("hidden"))) char **_swift_stdlib_getUnsafeArgvArgc(int *count);

__attribute__((swiftcall, visibility("hidden"))) char **_swift_stdlib_getUnsafeArgvArgc(int *count)
{
	if (saved_argv == NULL) {
		*count = 0;
		return no_arguments;
	}
	*count = saved_argc;
	return saved_argv;
}
