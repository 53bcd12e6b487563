/* SPDX-License-Identifier: Apache-2.0 */
/*
 * helper.c in-process, against fake helpers: what pamtester cannot show.
 * The host process must come out as it went in (same fds, SIGCHLD
 * disposition, signal mask, no pending SIGPIPE, no child left), also when it
 * ignores SIGCHLD or runs with fds 0 and 2 closed.  Includes helper.c to
 * reach its static functions; pam_syslog, pam_vsyslog and pam_prompt are stubbed.
 * The helper_run cases need root (the helper must be root-owned).
 */
#include "../helper.c"

#include <dirent.h>
#include <fcntl.h>
#include <pty.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static char messages[4096];
static char log_lines[8192];
static int passed, failed;

void pam_vsyslog(const pam_handle_t *pamh, int priority, const char *fmt, va_list ap)
{
	size_t n = strlen(log_lines);

	(void)pamh;
	(void)priority;
	vsnprintf(log_lines + n, sizeof(log_lines) - n, fmt, ap);
	n = strlen(log_lines);
	snprintf(log_lines + n, sizeof(log_lines) - n, "|");
}

void pam_syslog(const pam_handle_t *pamh, int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pam_vsyslog(pamh, priority, fmt, ap);
	va_end(ap);
}

int pam_prompt(pam_handle_t *pamh, int style, char **response, const char *fmt, ...)
{
	size_t n = strlen(messages);
	va_list ap;

	(void)pamh;
	(void)response;
	snprintf(messages + n, sizeof(messages) - n, "%c:", style == PAM_TEXT_INFO ? 'I' : 'E');
	n = strlen(messages);
	va_start(ap, fmt);
	vsnprintf(messages + n, sizeof(messages) - n, fmt, ap);
	va_end(ap);
	n = strlen(messages);
	snprintf(messages + n, sizeof(messages) - n, "|");
	return PAM_SUCCESS;
}

static void expect(int ok, const char *what)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL: %s (messages '%s', log '%s')\n", what, messages, log_lines);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (d == NULL)
		return -1;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n - 3; /* ".", "..", and the DIR's own fd */
}

static int sigpipe_pending(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigpending(&s);
	return sigismember(&s, SIGPIPE);
}

/* Member by member: the kernel fills only part of glibc's sigset_t. */
static int same_mask(const sigset_t *a, const sigset_t *b)
{
	for (int sig = 1; sig < NSIG; sig++) {
		if (sigismember(a, sig) != sigismember(b, sig))
			return 0;
	}
	return 1;
}

/* A write into a pipe nobody reads: an error, and no SIGPIPE for the host. */
static void test_write_epipe(void)
{
	struct timespec deadline = deadline_after(5);
	sigset_t before, after;
	int p[2];

	if (pipe2(p, O_CLOEXEC) != 0)
		abort();
	close(p[0]);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	pthread_sigmask(SIG_SETMASK, NULL, &before);
	expect(write_request(NULL, p[1], "end\n", 4, &deadline) != PAM_SUCCESS,
	       "writing to a closed pipe fails");
	pthread_sigmask(SIG_SETMASK, NULL, &after);
	expect(!sigpipe_pending(), "our SIGPIPE is consumed");
	expect(sigismember(&after, SIGPIPE) == sigismember(&before, SIGPIPE),
	       "the signal mask is restored");

	/* A SIGPIPE the host already had pending is left for the host. */
	{
		sigset_t pipe_set, old;

		sigemptyset(&pipe_set);
		sigaddset(&pipe_set, SIGPIPE);
		pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
		raise(SIGPIPE);
		(void)write_request(NULL, p[1], "end\n", 4, &deadline);
		expect(sigpipe_pending(), "the host's pending SIGPIPE is kept");
		{
			struct timespec zero = { 0, 0 };

			(void)sigtimedwait(&pipe_set, NULL, &zero);
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	close(p[1]);
}

/* A helper that does not read: the write times out at the deadline. */
static void test_write_deadline(void)
{
	struct timespec deadline = deadline_after(1);
	static char big[256 * 1024];
	int p[2];

	if (pipe2(p, O_CLOEXEC) != 0)
		abort();
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	memset(big, 'a', sizeof(big));
	expect(write_request(NULL, p[1], big, sizeof(big), &deadline) == PAM_AUTHINFO_UNAVAIL,
	       "a request nobody reads times out");
	close(p[0]);
	close(p[1]);
}

static char dir[] = "/tmp/touchauth-test-helper.XXXXXX";

static void write_helper(const char *name, const char *body)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f == NULL)
		abort();
	/* Reads the request first, unless the body is a whole script of its own. */
	fprintf(f, "%s%s", strncmp(body, "#!", 2) == 0 ? "" : "#!/bin/sh\n/bin/cat >/dev/null\n",
		body);
	fclose(f);
	chmod(path, 0755);
}

/*
 * The whole log is WANT, or one of WANT's alternatives (separated by '\n',
 * which no log line contains): "" means nothing may be logged.
 */
static int log_is(const char *want)
{
	for (;;) {
		const char *end = strchr(want, '\n');
		size_t len = end != NULL ? (size_t)(end - want) : strlen(want);

		if (strlen(log_lines) == len && strncmp(log_lines, want, len) == 0)
			return 1;
		if (end == NULL)
			return 0;
		want = end + 1;
	}
}

/*
 * Run helper NAME; check the outcome, whether it was trusted (helper_run
 * returned PAM_SUCCESS), the messages exactly ("" = none may be shown), the
 * whole log exactly (log_is: "" = nothing may be logged) and the host's state.
 */
static void run(const char *name, enum ta_outcome want, int trusted, const char *want_messages,
		const char *want_log)
{
	struct config_values opts;
	struct helper_call call;
	struct sigaction before, after;
	sigset_t mask_before, mask_after;
	enum ta_outcome outcome;
	int fds = count_fds(), rc;
	char what[256];
	const char *argv[] = { "debug" };

	memset(&opts, 0, sizeof(opts));
	opts.timeout = 1;
	snprintf(opts.helper, sizeof(opts.helper), "%s/%s", dir, name);
	messages[0] = log_lines[0] = '\0';
	sigaction(SIGCHLD, NULL, &before);
	pthread_sigmask(SIG_SETMASK, NULL, &mask_before);

	call = (struct helper_call){ HELPER_VERIFY, &opts, "root", "test", 1,	argv, NULL, 0, 0,
				     NULL,	    NULL,  NULL,   NULL,   NULL };
	rc = helper_run((pam_handle_t *)dir, &call, &outcome, NULL);

	snprintf(what, sizeof(what), "%s: outcome %s", name, ta_outcomes[outcome].name);
	expect(outcome == want && (rc == PAM_SUCCESS) == trusted, what);
	snprintf(what, sizeof(what), "%s: messages are exactly '%.60s'%s", name, want_messages,
		 strlen(want_messages) > 60 ? "... (all of them)" : "");
	expect(strcmp(messages, want_messages) == 0, what);
	snprintf(what, sizeof(what), "%s: the log is exactly '%.200s'", name, want_log);
	for (char *c = what; *c != '\0'; c++) {
		if (*c == '\n')
			*c = '/'; /* the alternatives, on one line */
	}
	expect(log_is(want_log), what);
	snprintf(what, sizeof(what), "%s: no fd leaked (%d -> %d)", name, fds, count_fds());
	expect(count_fds() == fds, what);
	sigaction(SIGCHLD, NULL, &after);
	snprintf(what, sizeof(what), "%s: SIGCHLD disposition restored", name);
	expect(after.sa_handler == before.sa_handler, what);
	pthread_sigmask(SIG_SETMASK, NULL, &mask_after);
	snprintf(what, sizeof(what), "%s: signal mask unchanged", name);
	expect(same_mask(&mask_before, &mask_after), what);
	snprintf(what, sizeof(what), "%s: no child left", name);
	expect(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD, what);
}

/*
 * The terminal hangs up while the prompt is up (its master side is gone): the
 * person who asked is gone, so the prompt ends at once as systemCancel and the
 * helper is stopped, instead of waiting for a touch until the deadline.
 */
static void test_hangup(void)
{
	struct config_values opts;
	struct helper_call call;
	struct terminal term;
	enum ta_outcome outcome = TA_SUCCESS;
	struct timespec t0, t1;
	const char *argv[] = { "debug" };
	int master, slave, rc;
	long ms;

	if (openpty(&master, &slave, NULL, NULL, NULL) != 0) {
		expect(0, "hangup: openpty");
		return;
	}
	terminal_init(&term);
	term.fd = slave;
	close(master);
	memset(&opts, 0, sizeof(opts));
	opts.timeout = 5;
	snprintf(opts.helper, sizeof(opts.helper), "%s/hang", dir);
	messages[0] = log_lines[0] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &t0);
	call = (struct helper_call){ HELPER_VERIFY, &opts, "root", "test", 1,	argv, &term, 0, 0,
				     NULL,	    NULL,  NULL,   NULL,   NULL };
	rc = helper_run((pam_handle_t *)dir, &call, &outcome, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	expect(rc == PAM_SUCCESS && outcome == TA_SYSTEM_CANCEL,
	       "hangup: the prompt ends as systemCancel, by the terminal, not the deadline");
	/* The hang helper says nothing after its header, and the prompt ends quietly. */
	expect(log_lines[0] == '\0' && messages[0] == '\0',
	       "hangup: nothing logged (no 'timed out'), no message shown");
	printf("hangup: returned after %ld ms (deadline %d s)\n", ms, opts.timeout + 3);
	expect(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD, "hangup: no child left");
	close(slave);
}

/* The fake helpers, each a shell script in dir, one way a helper can behave. */
static void write_helpers(void)
{
	char path[256];

	if (mkdtemp(dir) == NULL)
		abort();
	chmod(dir, 0755);
	write_helper("success",
		     "printf 'touchauth 1\\ninfo Place your finger\\nresult success\\n'\n");
	write_helper("cancel", "printf 'touchauth 1\\nresult systemCancel\\n'\n");
	write_helper("exit1", "printf 'touchauth 1\\nresult success\\n'\nexit 1\n");
	write_helper("garbage", "echo nope\n");
	write_helper("crash", "printf 'touchauth 1\\n'\nkill -SEGV $$\n");
	/*
	 * Dies before it reads: on a loaded machine the write hits EPIPE first
	 * (CI did), and the log must still say why.  Which path runs is timing;
	 * both were checked by delaying write_request by 100 ms.
	 */
	write_helper("crash_unread", "#!/bin/sh\nkill -SEGV $$\n");
	write_helper("hang", "printf 'touchauth 1\\n'\nexec /bin/sleep 100\n");
	write_helper("flood", "echo 'touchauth 1'\nexec /usr/bin/yes 'error x'\n");
	write_helper("writable", "printf 'touchauth 1\\nresult success\\n'\n");
	snprintf(path, sizeof(path), "%s/writable", dir);
	chmod(path, 0777);
}

/* Hosts that set up their process oddly: the helper must still run and be reaped. */
static void test_odd_hosts(void)
{
	struct sigaction ign, old;
	int in, err;

	/* A host that ignores SIGCHLD would have its children auto-reaped. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGCHLD, &ign, &old);
	run("success", TA_SUCCESS, 1, "I:Place your finger|", "");
	sigaction(SIGCHLD, &old, NULL);

	/* A host with stdin and stderr closed: the pipes land on fds 0 and 2. */
	in = dup(0);
	err = dup(2);
	close(0);
	close(2);
	run("success", TA_SUCCESS, 1, "I:Place your finger|", "");
	dup2(in, 0);
	dup2(err, 2);
	close(in);
	close(err);
}

static void test_helpers(void)
{
	static char flood_messages[4 * TA_REPLY_LINES_MAX + 1];
	char writable_log[512], missing_log[512], cmd[300];

	write_helpers();
	/* The flood: the header, then 63 relayed errors; the 65th line is refused. */
	for (int i = 1; i < TA_REPLY_LINES_MAX; i++)
		strcat(flood_messages, "E:x|");
	snprintf(writable_log, sizeof(writable_log), "%s/writable is group- or other-writable|",
		 dir);
	snprintf(missing_log, sizeof(missing_log), "helper %s/missing: No such file or directory|",
		 dir);

	run("success", TA_SUCCESS, 1, "I:Place your finger|", "");
	run("cancel", TA_SYSTEM_CANCEL, 1, "", "");
	run("exit1", TA_SYSTEM_CANCEL, 0, "", "helper exit status 1|");
	run("garbage", TA_SYSTEM_CANCEL, 0, "", "helper protocol error: missing header|");
	run("crash", TA_SYSTEM_CANCEL, 0, "",
	    "helper protocol error: no result|helper killed by signal 11|");
	/* Either path (see crash_unread above), each ending with why the helper died. */
	run("crash_unread", TA_SYSTEM_CANCEL, 0, "",
	    "cannot write the request to the helper: Broken pipe|helper killed by signal 11|\n"
	    "helper protocol error: missing header|helper killed by signal 11|");
	run("hang", TA_SYSTEM_CANCEL, 0, "", "helper timed out|");
	run("flood", TA_SYSTEM_CANCEL, 0, flood_messages, "helper protocol error: too many lines|");
	run("writable", TA_SYSTEM_CANCEL, 0, "", writable_log);
	run("missing", TA_SYSTEM_CANCEL, 0, "", missing_log);
	test_hangup();
	test_odd_hosts();

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("could not remove %s\n", dir);
}

/*
 * The language of the user's messages (contract.h; the Swift side's test is
 * Tests/TouchAuthPlatformTests/GettextTests.swift): glibc's order, an empty
 * value unset, a value the filter refuses passed over.
 */
static void test_messages_locale(void)
{
	const char *de = "de_DE.UTF-8", *fr = "fr_FR.UTF-8", *zh = "zh_CN.UTF-8";

	expect(ta_messages_locale(de, fr, zh) == de, "messages: LC_ALL first");
	expect(ta_messages_locale(NULL, fr, zh) == fr, "messages: then LC_MESSAGES");
	expect(ta_messages_locale("", "", zh) == zh,
	       "messages: an empty value is unset; then LANG");
	expect(ta_messages_locale(NULL, NULL, NULL) == NULL, "messages: none set: English");
	expect(ta_messages_locale("../../tmp/x", "/etc", zh) == zh,
	       "messages: a path is passed over");
	expect(ta_messages_locale("de DE", NULL, NULL) == NULL, "messages: refused by the filter");
}

int main(void)
{
	test_messages_locale();
	test_write_epipe();
	test_write_deadline();
	if (geteuid() == 0)
		test_helpers();
	else
		printf("not root: helper_run cases skipped\n");
	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
