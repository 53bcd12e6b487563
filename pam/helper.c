/*
 * The helper exec recipe (DESIGN.md §4), after pam_unix's
 * _unix_run_helper_binary: root-owned binary at an absolute path, fixed argv,
 * an environment of locale variables only, pipes on stdin/stdout, /dev/null
 * on stderr, no other fd, default signal dispositions and an empty mask,
 * SIGCHLD at its default while we wait, an absolute deadline, kill and reap.
 * The host process must come out exactly as it went in: no handler, no
 * pending SIGPIPE, no zombie, no fd.
 */
#include "helper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_ext.h>

/* The helper keeps the user-visible timeout; this is the shim's slack on top. */
#define DEADLINE_SLACK_SECONDS 3
#define REAP_SLEEP_MAX_MS      50
#define STOP_GRACE_MS	       200 /* SIGTERM -> SIGKILL when the user ends the prompt */

/* Request: header, user, service, fallback, 32 args, end (docs/PROTOCOL.md). */
#define REQUEST_LINES_MAX   (5 + TA_REQUEST_ARGS_MAX)
#define REQUEST_MAX	    (REQUEST_LINES_MAX * TA_LINE_MAX)
#define USER_LINE_PREFIX    "user "
#define SERVICE_LINE_PREFIX "service "
#define ARG_LINE_PREFIX	    "arg "

/* The environment is these, when their values look like a locale name. */
static const char *const locale_vars[] = {
	"LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LC_CTYPE",
};
#define NLOCALE_VARS	   (sizeof(locale_vars) / sizeof(locale_vars[0]))
#define LOCALE_VALUE_MAX   64
#define LOCALE_VALUE_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.@:-"

struct helper_env {
	char store[NLOCALE_VARS][16 + LOCALE_VALUE_MAX];
	char *envp[NLOCALE_VARS + 1];
};

static void build_env(struct helper_env *env)
{
	size_t n = 0;

	for (size_t i = 0; i < NLOCALE_VARS; i++) {
		const char *v = getenv(locale_vars[i]);
		size_t len;

		if (v == NULL)
			continue;
		len = strlen(v);
		if (len < 1 || len > LOCALE_VALUE_MAX || strspn(v, LOCALE_VALUE_CHARS) != len)
			continue;
		snprintf(env->store[n], sizeof(env->store[n]), "%s=%s", locale_vars[i], v);
		env->envp[n] = env->store[n];
		n++;
	}
	env->envp[n] = NULL;
}

/* Refuse a helper that anyone but root could have replaced. */
static int check_helper(pam_handle_t *pamh, const char *path)
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

static int has_control_byte(const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			return 1;
	}
	return 0;
}

/* Append "prefix value\n" if it is a valid protocol line. */
static int append_line(char *buf, size_t *len, const char *prefix, const char *value)
{
	size_t plen = strlen(prefix), vlen = strlen(value);

	if (has_control_byte(value) || plen + vlen + 1 > TA_LINE_MAX ||
	    *len + plen + vlen + 1 > REQUEST_MAX)
		return -1;
	memcpy(buf + *len, prefix, plen);
	memcpy(buf + *len + plen, value, vlen);
	buf[*len + plen + vlen] = '\n';
	*len += plen + vlen + 1;
	return 0;
}

static int build_request(pam_handle_t *pamh, const char *user, const char *service, int offer_enter,
			 int argc, const char **argv, char *buf, size_t *len)
{
	int nargs = 0;

	*len = 0;
	if (append_line(buf, len, "touchauth-request 1", "") != 0 ||
	    append_line(buf, len, USER_LINE_PREFIX, user) != 0) {
		pam_syslog(pamh, LOG_ERR, "user name does not fit the protocol");
		return PAM_SYSTEM_ERR;
	}
	if (append_line(buf, len, SERVICE_LINE_PREFIX, service) != 0) {
		pam_syslog(pamh, LOG_ERR, "service name does not fit the protocol");
		return PAM_SYSTEM_ERR;
	}
	/* So the helper's hint names only a key we really take. */
	(void)append_line(buf, len, "fallback ", offer_enter ? "enter" : "none");
	for (int i = 0; i < argc; i++) {
		if (nargs == TA_REQUEST_ARGS_MAX ||
		    append_line(buf, len, ARG_LINE_PREFIX, argv[i]) != 0) {
			pam_syslog(pamh, LOG_ERR, "module argument %d not passed to the helper",
				   i + 1);
			continue;
		}
		nargs++;
	}
	(void)append_line(buf, len, "end", "");
	return PAM_SUCCESS;
}

static struct timespec deadline_after(int seconds)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += seconds;
	return t;
}

/* Milliseconds until the deadline, 0 once it has passed. */
static int ms_left(const struct timespec *deadline)
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
__attribute__((noreturn)) static void exec_child(enum helper_mode mode, const char *path, int req,
						 int reply, int devnull, char *const envp[],
						 pid_t host)
{
	char *const argv[] = { (char *)"touchauth",
			       (char *)(mode == HELPER_ACCOUNT ? "pam-account" : "pam-verify"),
			       NULL };
	struct sigaction dfl;
	sigset_t empty;
	int in, out, err;

	/*
	 * Move our three fds above 2 first: if the host runs with 0, 1 or 2
	 * closed, a pipe end may sit on one of them and a direct dup2 would
	 * clobber it (or, dup2(fd, fd), keep its close-on-exec flag).
	 */
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
	 * Nothing outlives the prompt: its own process group, so the shim ends
	 * whatever the helper started with it; and gone with the host, even one
	 * killed by SIGKILL (the parent-death signal survives this execve: the
	 * helper is not setuid for a root host).  A host that died before the
	 * prctl is caught by the getppid check.
	 */
	if (setpgid(0, 0) != 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != host)
		_exit(127);

	/*
	 * pam_unix's recipe: a setuid host (sudo, su) runs us with real uid = the
	 * user.  The helper takes a non-root real uid for a caller that may only
	 * verify itself (a screen locker through the setuid helper), so make it
	 * root all through; with no root to give (a screen locker) the helper's
	 * own setuid bit decides.
	 */
	if (geteuid() == 0 && setuid(0) != 0)
		_exit(127);
	execve(path, argv, envp);
	_exit(127);
}

/*
 * Write the whole request before the deadline.  The fd is non-blocking so a
 * helper that never reads cannot stall us; SIGPIPE is blocked and, if our
 * write raised it, consumed, so the host never sees it.
 */
static int write_request(pam_handle_t *pamh, int fd, const char *buf, size_t len,
			 const struct timespec *deadline)
{
	sigset_t pipe_set, old_mask, pending;
	int was_pending, retval = PAM_SUCCESS;
	size_t off = 0;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);
	sigemptyset(&pending);
	sigpending(&pending);
	/* A SIGPIPE the host already had pending is the host's, not ours to eat. */
	was_pending = sigismember(&pending, SIGPIPE);

	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w >= 0) {
			off += (size_t)w;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };
			int ms = ms_left(deadline);

			if (ms == 0) {
				pam_syslog(pamh, LOG_ERR, "helper timed out reading the request");
				retval = PAM_AUTHINFO_UNAVAIL;
				break;
			}
			if (poll(&pfd, 1, ms) < 0 && errno != EINTR) {
				pam_syslog(pamh, LOG_ERR, "poll: %m");
				retval = PAM_SYSTEM_ERR;
				break;
			}
			continue;
		}
		pam_syslog(pamh, LOG_ERR, "cannot write the request to the helper: %m");
		retval = PAM_AUTHINFO_UNAVAIL;
		break;
	}

	if (!was_pending) {
		struct timespec zero = { 0, 0 };

		sigemptyset(&pending);
		sigpending(&pending);
		if (sigismember(&pending, SIGPIPE)) {
			while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
				;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	return retval;
}

static void relay(pam_handle_t *pamh, int style, const char *text)
{
	/* A missing or failing conversation only loses a message, not the outcome. */
	(void)pam_prompt(pamh, style, NULL, "%s", text);
}

/*
 * Read the reply until EOF, a protocol error or the deadline, showing each
 * message as soon as its line is complete.  PAM_SUCCESS means EOF after a
 * complete, well-formed reply.  *eof tells whether the helper closed its
 * output (then it is probably exiting and its status is worth waiting for)
 * or we stopped reading early (then it is killed).
 */
static int read_reply(pam_handle_t *pamh, int fd, const struct timespec *deadline,
		      struct reply_parser *parser, struct terminal *term, enum ta_outcome *by_user,
		      int *eof)
{
	char buf[4096];
	/* The terminal is watched beside the reply. */
	int tty = term != NULL ? term->fd : -1;

	*eof = 0;
	for (;;) {
		struct pollfd pfd[3] = { { .fd = fd, .events = POLLIN },
					 { .fd = tty, .events = POLLIN },
					 { .fd = term != NULL ? term->stop_fd : -1,
					   .events = POLLIN } };
		int ms = ms_left(deadline);
		ssize_t n;
		size_t off = 0;

		if (ms == 0) {
			pam_syslog(pamh, LOG_ERR, "helper timed out");
			return PAM_AUTHINFO_UNAVAIL;
		}
		if (poll(pfd, 3, ms) < 0) {
			if (errno == EINTR)
				continue;
			pam_syslog(pamh, LOG_ERR, "poll: %m");
			return PAM_SYSTEM_ERR;
		}
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
			switch (terminal_read(term)) {
			case KEY_FALLBACK:
			case KEY_TYPING: /* the caller reads the password; the sensor stops now */
				*by_user = TA_USER_FALLBACK;
				return PAM_SUCCESS;
			case KEY_CANCEL:
				*by_user = TA_USER_CANCEL;
				return PAM_SUCCESS;
			case KEY_GONE:
				/*
				 * The terminal hung up: whoever asked is gone, and the
				 * next touch must not answer for them.
				 */
				*by_user = TA_SYSTEM_CANCEL;
				return PAM_SUCCESS;
			case KEY_IGNORED:
			case KEY_PASSWORD:
			default:
				break;
			}
		}
		if (pfd[2].revents & POLLIN) {
			/* The host was told to stop (terminal.h, struct held_signals). */
			pam_syslog(pamh, LOG_INFO, "SIGTERM or SIGHUP for the host: prompt ended");
			term->stopped = 1;
			*by_user = TA_USER_CANCEL;
			return PAM_SUCCESS;
		}
		if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
			continue; /* poll timed out: the deadline check above ends it */

		n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			pam_syslog(pamh, LOG_ERR, "cannot read the helper's reply: %m");
			return PAM_SYSTEM_ERR;
		}
		if (n == 0) {
			*eof = 1;
			if (reply_finish(parser) != REPLY_DONE) {
				pam_syslog(pamh, LOG_ERR, "helper protocol error: %s",
					   parser->error);
				return PAM_AUTHINFO_UNAVAIL;
			}
			return PAM_SUCCESS;
		}

		while (off < (size_t)n) {
			const char *text = NULL;
			size_t used = 0;

			switch (reply_feed(parser, buf + off, (size_t)n - off, &used, &text)) {
			case REPLY_INFO:
				relay(pamh, PAM_TEXT_INFO, text);
				break;
			case REPLY_ERROR_MSG:
				relay(pamh, PAM_ERROR_MSG, text);
				break;
			case REPLY_PROTOCOL_ERROR:
				pam_syslog(pamh, LOG_ERR, "helper protocol error: %s",
					   parser->error);
				return PAM_AUTHINFO_UNAVAIL;
			case REPLY_DONE:
			case REPLY_NEED_MORE:
			default:
				break;
			}
			off += used;
		}
	}
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

/*
 * The helper's group, or the helper alone if its group was never made: its
 * child sets it before execve and we set it after fork, so it is there
 * before anything could be signalled, unless the child died first.
 */
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

/*
 * Nothing outlives the prompt: whatever the helper started in its group goes
 * with it (a helper that hangs in a child, or leaves one behind), then the
 * helper is reaped.  Its status is kept if it had ended already.
 */
static int end_and_reap(pam_handle_t *pamh, pid_t pid, int *status)
{
	signal_helper(pid, SIGKILL);
	return wait_killed(pamh, pid, status);
}

/*
 * The user ended the prompt (Enter, typing, Ctrl-C): SIGTERM first, which the
 * helper takes as "cancel the scan" and refunds the strike charged for a scan
 * that reached no verdict (PamVerify.swift, Termination); SIGKILL after
 * STOP_GRACE_MS whatever happens.  No wrong finger goes uncounted either way:
 * its strike is on disk before its scan is offered; a kill before the refund
 * only costs the user that strike.  A helper that ends at once costs the user
 * about a millisecond.
 */
static void stop_gently(pam_handle_t *pamh, pid_t pid, int *status)
{
	struct timespec now, grace;

	clock_gettime(CLOCK_MONOTONIC, &now);
	grace.tv_sec = now.tv_sec + (now.tv_nsec + STOP_GRACE_MS * 1000000L) / 1000000000L;
	grace.tv_nsec = (now.tv_nsec + STOP_GRACE_MS * 1000000L) % 1000000000L;
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
	(void)end_and_reap(pamh, pid, status);
}

/* Why a helper that did not exit 0 ended, in the words the tests look for. */
static void log_end(pam_handle_t *pamh, int status)
{
	if (WIFSIGNALED(status))
		pam_syslog(pamh, LOG_ERR, "helper killed by signal %d", WTERMSIG(status));
	else
		pam_syslog(pamh, LOG_ERR, "helper exit status %d", WEXITSTATUS(status));
}

/*
 * Wait for pid until the deadline without blocking: a helper that closed
 * stdout but hangs must not hang the host.  At the deadline, SIGKILL and a
 * blocking wait, so no zombie is left.
 */
static int reap(pam_handle_t *pamh, pid_t pid, const struct timespec *deadline, int *status)
{
	/*
	 * A pidfd is readable the moment the child exits.  The helper closes its
	 * output just before it exits, so polling with sleeps cost every match a
	 * whole first sleep (~1 ms, scripts/bench.sh).  Without pidfd_open (Linux
	 * < 5.3) the sleeps remain.
	 */
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int delay = 1, retval = PAM_AUTHINFO_UNAVAIL;

	for (;;) {
		int r = ended(pid), ms;

		if (r == 1) {
			retval = end_and_reap(pamh, pid, status);
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
	(void)end_and_reap(pamh, pid, status);
out:
	if (pidfd >= 0)
		close(pidfd);
	return retval;
}

int helper_run(pam_handle_t *pamh, enum helper_mode mode, const struct options *opts,
	       const char *user, const char *service, int argc, const char **argv,
	       struct terminal *term, enum ta_outcome *outcome, int *strikes)
{
	struct sigaction dfl_chld, old_chld;
	struct helper_env env;
	struct reply_parser parser;
	struct timespec deadline;
	sigset_t all, old_mask;
	char *request = NULL;
	size_t request_len = 0;
	int req[2] = { -1, -1 }, reply[2] = { -1, -1 }, devnull = -1;
	int chld_saved = 0, status = 0, eof = 0, written = 0, retval;
	enum ta_outcome by_user = TA_OUTCOME_COUNT; /* set by a key */
	pid_t pid = -1, host;

	*outcome = TA_SYSTEM_CANCEL;
	if (strikes != NULL)
		*strikes = -1;
	reply_init(&parser);

	retval = check_helper(pamh, opts->helper);
	if (retval != PAM_SUCCESS)
		goto out;

	request = malloc(REQUEST_MAX);
	if (request == NULL) {
		pam_syslog(pamh, LOG_ERR, "out of memory");
		retval = PAM_BUF_ERR;
		goto out;
	}
	retval = build_request(pamh, user, service, term != NULL && term->offer, argc, argv,
			       request, &request_len);
	if (retval != PAM_SUCCESS)
		goto out;
	build_env(&env);

	if (pipe2(req, O_CLOEXEC) != 0 || pipe2(reply, O_CLOEXEC) != 0) {
		pam_syslog(pamh, LOG_ERR, "pipe2: %m");
		retval = PAM_SYSTEM_ERR;
		goto out;
	}
	/* Only our end: the child's end of the pipe is its own file description. */
	if (fcntl(req[1], F_SETFL, O_NONBLOCK) != 0) {
		pam_syslog(pamh, LOG_ERR, "fcntl: %m");
		retval = PAM_SYSTEM_ERR;
		goto out;
	}
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0) {
		pam_syslog(pamh, LOG_ERR, "/dev/null: %m");
		retval = PAM_SYSTEM_ERR;
		goto out;
	}

	/*
	 * The host may ignore SIGCHLD (then the kernel reaps for it and our
	 * waitpid fails) or catch it (and reap our child in its handler).
	 */
	memset(&dfl_chld, 0, sizeof(dfl_chld));
	dfl_chld.sa_handler = SIG_DFL;
	sigemptyset(&dfl_chld.sa_mask);
	if (sigaction(SIGCHLD, &dfl_chld, &old_chld) != 0) {
		pam_syslog(pamh, LOG_ERR, "sigaction: %m");
		retval = PAM_SYSTEM_ERR;
		goto out;
	}
	chld_saved = 1;

	deadline = deadline_after(opts->timeout + DEADLINE_SLACK_SECONDS);

	/* No host handler may run in the child before it resets them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old_mask);
	host = getpid();
	pid = fork();
	if (pid == 0)
		exec_child(mode, opts->helper, req[0], reply[1], devnull, env.envp, host);
	/* Both sides set the group, so no kill below can come before it exists (EACCES after exec
	 * is fine). */
	if (pid > 0)
		(void)setpgid(pid, pid);
	if (pid < 0)
		pam_syslog(pamh, LOG_ERR, "fork: %m");
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	if (pid < 0) {
		retval = PAM_SYSTEM_ERR;
		goto out;
	}

	/* Close the child's ends, so EOF on the reply means the helper closed it. */
	close(req[0]);
	close(reply[1]);
	close(devnull);
	req[0] = reply[1] = devnull = -1;

	retval = write_request(pamh, req[1], request, request_len, &deadline);
	close(req[1]);
	req[1] = -1;
	written = retval == PAM_SUCCESS;
	if (written)
		retval = read_reply(pamh, reply[0], &deadline, &parser, term, &by_user, &eof);
	if (!eof) {
		/* Still unreaped, so pid cannot have been reused. */
		if (by_user != TA_OUTCOME_COUNT)
			stop_gently(pamh, pid, &status);
		else {
			/*
			 * A helper that died before reading the request (EPIPE above)
			 * is a zombie: SIGKILL does not change its status, which
			 * says why it died.
			 */
			if (end_and_reap(pamh, pid, &status) == PAM_SUCCESS && !written &&
			    !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
				log_end(pamh, status);
		}
		/* Enter, typing, Ctrl-C or a hang-up: never a success. */
		if (by_user != TA_OUTCOME_COUNT && retval == PAM_SUCCESS)
			*outcome = by_user;
		else if (retval == PAM_SUCCESS)
			retval = PAM_AUTHINFO_UNAVAIL;
		goto out;
	}

	/* At EOF, even after a bad reply: its exit status says why. */
	{
		int reaped = reap(pamh, pid, &deadline, &status);

		if (reaped != PAM_SUCCESS) {
			retval = reaped;
			goto out;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		log_end(pamh, status);
		retval = PAM_AUTHINFO_UNAVAIL;
		goto out;
	}
	if (retval != PAM_SUCCESS)
		goto out;
	/* read_reply returned PAM_SUCCESS, so the reply was complete. */
	if (parser.state != RS_DONE) {
		retval = PAM_AUTHINFO_UNAVAIL;
		goto out;
	}
	*outcome = parser.outcome;
	if (strikes != NULL)
		*strikes = parser.strikes;

out:
	if (chld_saved)
		(void)sigaction(SIGCHLD, &old_chld, NULL);
	for (int i = 0; i < 2; i++) {
		if (req[i] >= 0)
			close(req[i]);
		if (reply[i] >= 0)
			close(reply[i]);
	}
	if (devnull >= 0)
		close(devnull);
	free(request);
	return retval;
}
