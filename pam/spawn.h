/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Starting and ending the helper's process (spawn.c): the exec recipe of
 * docs/ARCHITECTURE.md#the-exec-recipe, the deadline arithmetic, and the ways a helper ends (reaped
 * after it exits, stopped gently when the user ends the prompt, killed).
 * Nothing here speaks the protocol: helper.c does.
 */
#ifndef TOUCHAUTH_SPAWN_H
#define TOUCHAUTH_SPAWN_H

#include <signal.h>
#include <sys/types.h>
#include <time.h>

#include <security/pam_modules.h>

/* A running helper: its pid (-1 before), our ends of its stdin and stdout, the host's SIGCHLD. */
struct spawn {
	pid_t pid;
	int to_child; /* non-blocking */
	int from_child;
	struct sigaction old_chld;
	int chld_saved;
};

/* Kept out of clang-format: 14 (Debian 12) and 19 (Debian 13) lay out a braced macro apart. */
/* clang-format off */
#define SPAWN_INIT { .pid = -1, .to_child = -1, .from_child = -1 }
/* clang-format on */

/* CLOCK_MONOTONIC seconds from now; milliseconds left until it (0 once passed). */
struct timespec deadline_after(int seconds);
int ms_left(const struct timespec *deadline);

/* Refuse a helper that anyone but root could have replaced (logged). */
int spawn_check(pam_handle_t *pamh, const char *path);

/*
 * Run `touchauth COMMAND` from path.  PAM_SUCCESS with sp->pid, to_child and
 * from_child set; otherwise an error, logged, and no process.  Either way
 * SIGCHLD may be at its default until spawn_release.
 */
int spawn_start(pam_handle_t *pamh, const char *path, const char *command, struct spawn *sp);

/*
 * Wait for a helper that closed its output, until the deadline, without
 * blocking; at the deadline SIGKILL and reap.  *status is its wait status.
 */
int spawn_reap(pam_handle_t *pamh, pid_t pid, const struct timespec *deadline, int *status);

/* The user ended the prompt: SIGTERM, SIGKILL after a grace, to its whole group; reaped. */
void spawn_stop_gently(pam_handle_t *pamh, pid_t pid, int *status);

/* SIGKILL to its whole group, then reap (its status kept if it had ended already). */
int spawn_kill_and_reap(pam_handle_t *pamh, pid_t pid, int *status);

/* Log why a helper that did not exit 0 ended, in the words the tests look for. */
void spawn_log_end(pam_handle_t *pamh, int status);

/* The host's SIGCHLD back, our fds closed.  The process must be reaped already. */
void spawn_release(struct spawn *sp);

#endif /* TOUCHAUTH_SPAWN_H */
