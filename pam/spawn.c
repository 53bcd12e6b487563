/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The helper's process (spawn.h): the exec recipe, docs/ARCHITECTURE.md#the-exec-recipe.
 * The host comes out as it went in: no handler, no pending signal, no zombie, no fd.
 */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>

#include "contract.h"
#include "options.h"

#define REAP_SLEEP_MAX_MS 50

struct helper_env {
	char store[TA_LOCALE_VARIABLES][16 + TA_LOCALE_VALUE_MAX];
	char *envp[TA_LOCALE_VARIABLES + 1];
};

/* The contract's locale variables whose values look like a locale name. */
static void build_env(struct helper_env *env)
{
	size_t n = 0;
	const char *name;

	for (unsigned int i = 0; (name = ta_locale_variable(i)) != NULL; i++) {
		const char *v = getenv(name);

		if (v == NULL || !ta_locale_value_ok(v))
			continue;
		snprintf(env->store[n], sizeof(env->store[n]), "%s=%s", name, v);
		env->envp[n] = env->store[n];
		n++;
	}
	env->envp[n] = NULL;
}

/* Refuse a helper that anyone but root could have replaced. */
int spawn_check(pam_handle_t *pamh, const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		pam_syslog(pamh, LOG_ERR, "helper %s: %m", path);
		return PAM_AUTHINFO_UNAVAIL;
	}
	if (trusted_by_root(pamh, path, &st) != 0)
		return PAM_AUTHINFO_UNAVAIL;
	if (!(st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH))) {
		pam_syslog(pamh, LOG_ERR, "helper %s is not executable", path);
		return PAM_AUTHINFO_UNAVAIL;
	}
	return PAM_SUCCESS;
}

struct timespec deadline_after(int seconds)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += seconds;
	return t;
}

/* Milliseconds until the deadline, 0 once it has passed. */
int ms_left(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(deadline->tv_sec - now.tv_sec) * 1000 +
	     (deadline->tv_nsec - now.tv_nsec) / 1000000;
	if (ms <= 0)
		return 0;
	return ms > 1000000 ? 1000000 : (int)ms;
}

/* In the child: only async-signal-safe calls from here to execve. */
__attribute__((noreturn)) static void exec_child(const char *command, const char *path, int req,
						 int reply, int devnull, char *const envp[],
						 pid_t host)
{
	char *const argv[] = { (char *)"touchauth", (char *)command, NULL };
	struct sigaction dfl;
	sigset_t empty;
	int in, out, err;

	/* Above 2 first: a host with 0, 1 or 2 closed may have a pipe end there. */
	in = fcntl(req, F_DUPFD_CLOEXEC, 3);
	out = fcntl(reply, F_DUPFD_CLOEXEC, 3);
	err = fcntl(devnull, F_DUPFD_CLOEXEC, 3);
	if (in < 0 || out < 0 || err < 0)
		_exit(127);
	if (dup2(in, 0) != 0 || dup2(out, 1) != 1 || dup2(err, 2) != 2)
		_exit(127);
	if (close_range(3, ~0U, 0) != 0) {
		long max = sysconf(_SC_OPEN_MAX);

		for (int fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
			close(fd);
	}

	/* Ignored signals stay ignored across execve; caught ones are reset anyway. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig < NSIG; sig++) {
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sigaction(sig, &dfl, NULL);
	}
	/* sudo blocks SIGINT; the helper must see Ctrl-C. */
	sigemptyset(&empty);
	(void)sigprocmask(SIG_SETMASK, &empty, NULL);

	/*
	 * Nothing outlives the prompt or the host (decision 0026); getppid: a host
	 * that died before the prctl.
	 */
	if (setpgid(0, 0) != 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != host)
		_exit(127);

	/* Root all through under a setuid host (decision 0011); else the helper's own bit. */
	if (geteuid() == 0 && setuid(0) != 0)
		_exit(127);
	execve(path, argv, envp);
	_exit(127);
}

/* A host's ignored or caught SIGCHLD would reap our child: at its default until spawn_release. */
static int default_sigchld(pam_handle_t *pamh, struct spawn *sp)
{
	struct sigaction dfl;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	if (sigaction(SIGCHLD, &dfl, &sp->old_chld) != 0) {
		pam_syslog(pamh, LOG_ERR, "sigaction: %m");
		return PAM_SYSTEM_ERR;
	}
	sp->chld_saved = 1;
	return PAM_SUCCESS;
}

/* The child's stdin, stdout and stderr: the request and reply pipes, and /dev/null. */
static int open_pipes(pam_handle_t *pamh, int req[2], int reply[2], int *devnull)
{
	if (pipe2(req, O_CLOEXEC) != 0 || pipe2(reply, O_CLOEXEC) != 0) {
		pam_syslog(pamh, LOG_ERR, "pipe2: %m");
		return PAM_SYSTEM_ERR;
	}
	/* Only our end: the child's end of the pipe is its own file description. */
	if (fcntl(req[1], F_SETFL, O_NONBLOCK) != 0) {
		pam_syslog(pamh, LOG_ERR, "fcntl: %m");
		return PAM_SYSTEM_ERR;
	}
	*devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (*devnull < 0) {
		pam_syslog(pamh, LOG_ERR, "/dev/null: %m");
		return PAM_SYSTEM_ERR;
	}
	return PAM_SUCCESS;
}

int spawn_start(pam_handle_t *pamh, const char *path, const char *command, struct spawn *sp)
{
	struct helper_env env;
	sigset_t all, old_mask;
	int req[2] = { -1, -1 }, reply[2] = { -1, -1 }, devnull = -1, retval = PAM_SYSTEM_ERR;
	pid_t host;

	build_env(&env);
	if (open_pipes(pamh, req, reply, &devnull) != PAM_SUCCESS)
		goto out;
	if (default_sigchld(pamh, sp) != PAM_SUCCESS)
		goto out;

	/* No host handler may run in the child before it resets them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old_mask);
	host = getpid();
	sp->pid = fork();
	if (sp->pid == 0)
		exec_child(command, path, req[0], reply[1], devnull, env.envp, host);
	/* Both sides set the group, so no kill comes before it exists (EACCES after exec: fine). */
	if (sp->pid > 0)
		(void)setpgid(sp->pid, sp->pid);
	if (sp->pid < 0)
		pam_syslog(pamh, LOG_ERR, "fork: %m");
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	if (sp->pid < 0)
		goto out;
	sp->to_child = req[1];
	sp->from_child = reply[0];
	req[1] = reply[0] = -1;
	retval = PAM_SUCCESS;
out:
	/* The child's ends closed, so EOF on the reply means the helper closed it. */
	for (int i = 0; i < 2; i++) {
		if (req[i] >= 0)
			close(req[i]);
		if (reply[i] >= 0)
			close(reply[i]);
	}
	if (devnull >= 0)
		close(devnull);
	return retval;
}

void spawn_release(struct spawn *sp)
{
	if (sp->chld_saved)
		(void)sigaction(SIGCHLD, &sp->old_chld, NULL);
	sp->chld_saved = 0;
	if (sp->to_child >= 0)
		close(sp->to_child);
	if (sp->from_child >= 0)
		close(sp->from_child);
	sp->to_child = sp->from_child = -1;
}

static void sleep_ms(int ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };

	/* An interrupted sleep only makes the next waitpid come sooner. */
	(void)nanosleep(&t, NULL);
}

/* After SIGKILL, which cannot be caught, a blocking wait ends promptly. */
static int wait_killed(pam_handle_t *pamh, pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			pam_syslog(pamh, LOG_ERR, "waitpid: %m");
			return PAM_SYSTEM_ERR;
		}
	}
	return PAM_SUCCESS;
}

/* The helper's group (set on both sides of the fork), or the helper alone if it died first. */
static void signal_helper(pid_t pid, int sig)
{
	if (kill(-pid, sig) != 0)
		(void)kill(pid, sig);
}

/*
 * 1 when the helper has ended but is not reaped yet (a zombie keeps its pid
 * and group id ours, so signalling the group cannot hit a stranger), 0 while
 * it runs, -1 on an error (ECHILD: something else in the host reaped it).
 */
static int ended(pid_t pid)
{
	siginfo_t si;

	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
			return si.si_pid == pid;
		if (errno != EINTR)
			return -1;
	}
}

/* Whatever the helper started in its group goes with it; then it is reaped (its status kept). */
int spawn_kill_and_reap(pam_handle_t *pamh, pid_t pid, int *status)
{
	signal_helper(pid, SIGKILL);
	return wait_killed(pamh, pid, status);
}

/*
 * The prompt ended (Enter, typing, Ctrl-C): SIGTERM cancels the scan and refunds its strike
 * (Termination.swift), SIGKILL after TA_STOP_GRACE_MS (docs/POLICY.md#strikes).
 */
void spawn_stop_gently(pam_handle_t *pamh, pid_t pid, int *status)
{
	struct timespec now, grace;

	clock_gettime(CLOCK_MONOTONIC, &now);
	grace.tv_sec = now.tv_sec + (now.tv_nsec + TA_STOP_GRACE_MS * 1000000L) / 1000000000L;
	grace.tv_nsec = (now.tv_nsec + TA_STOP_GRACE_MS * 1000000L) % 1000000000L;
	signal_helper(pid, SIGTERM);
	for (;;) {
		int r = ended(pid);

		if (r < 0) {
			/* Reaped elsewhere; never signal a pid we no longer own. */
			pam_syslog(pamh, LOG_ERR, "waitid: %m");
			return;
		}
		if (r == 1 || ms_left(&grace) == 0)
			break;
		sleep_ms(1);
	}
	(void)spawn_kill_and_reap(pamh, pid, status);
}

/* Why a helper that did not exit 0 ended, in the words the tests look for. */
void spawn_log_end(pam_handle_t *pamh, int status)
{
	if (WIFSIGNALED(status))
		pam_syslog(pamh, LOG_ERR, "helper killed by signal %d", WTERMSIG(status));
	else
		pam_syslog(pamh, LOG_ERR, "helper exit status %d", WEXITSTATUS(status));
}

/* Wait for pid until the deadline (a hung helper never hangs the host); then SIGKILL and reap. */
int spawn_reap(pam_handle_t *pamh, pid_t pid, const struct timespec *deadline, int *status)
{
	/* A pidfd (decision 0025); without pidfd_open (Linux < 5.3), sleeps that double. */
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int delay = 1, retval = PAM_AUTHINFO_UNAVAIL;

	for (;;) {
		int r = ended(pid), ms;

		if (r == 1) {
			retval = spawn_kill_and_reap(pamh, pid, status);
			goto out;
		}
		if (r < 0) {
			/* ECHILD: something else in the host reaped it; its status is lost. */
			pam_syslog(pamh, LOG_ERR, "waitid: %m");
			retval = PAM_SYSTEM_ERR;
			goto out;
		}
		ms = ms_left(deadline);
		if (ms == 0)
			break;
		if (pidfd >= 0) {
			struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

			(void)poll(&pfd, 1, ms); /* EINTR: waitpid again */
			continue;
		}
		sleep_ms(delay < ms ? delay : ms);
		if (delay < REAP_SLEEP_MAX_MS)
			delay *= 2;
	}

	pam_syslog(pamh, LOG_ERR, "helper timed out after closing its output; killing it");
	(void)spawn_kill_and_reap(pamh, pid, status);
out:
	if (pidfd >= 0)
		close(pidfd);
	return retval;
}
