/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The differential test of the PAM stack reader (pamstack.c) against the real
 * libpam.  pamstack_diff RECORDER.so CONFDIR SERVICE...: for each service and
 * each of auth, account and session, libpam reads CONFDIR (pam_start_confdir)
 * and loads every module line as a copy of RECORDER.so (this program's dlopen
 * stands in for libc's), which records the call (the module's path, its
 * arguments) and returns the result asked; the stack is run with every module
 * returning success, then ignore, auth_err, authinfo_unavail, perm_denied,
 * new_authtok_reqd.  Ours: the reader's lines, run through libpam's dispatch
 * rules (_pam_dispatch_aux: ok/done/bad/die/ignore/reset, jumps, substack
 * frames).  The modules called, in order, with their arguments, and the
 * result must be the same; a stack the reader cannot tell about is counted
 * apart (and must not be one libpam reads without trouble in a way the reader
 * ... would have said otherwise: it is only skipped).  With -k the keyring
 * rule (keyring_scan, keyring.c) is held to libpam too: a keyring module
 * called in some auth run <=> KEYRING_UNLOCKS (or KEYRING_UNKNOWN).
 * Prints "ok"/"FAIL" lines and "N passed, M failed".
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <security/pam_appl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "keyring.h"
#include "pamstack.h"

#define TRACE_MAX 256
#define ENTRY_MAX 2048

/* Shared with the child that runs libpam (libpam 1.5.2 crashes on some files). */
static char (*trace)[ENTRY_MAX];
static int traced;
static int *shared_count;
static int answer;	   /* what every module returns */
static const char *wanted; /* the type run */
static const char *recorder;
static char workdir[] = "/tmp/pamstack-diff.XXXXXX";
static int copies;

static void note(char *dst, const char *path, int argc, const char *const *argv)
{
	size_t at = (size_t)snprintf(dst, ENTRY_MAX, "%s", path);

	for (int i = 0; i < argc && at < ENTRY_MAX; i++)
		at += (size_t)snprintf(dst + at, ENTRY_MAX - at, " <%s>", argv[i]);
}

int diff_record(const char *type, const char *path, int argc, const char **argv);
int diff_record(const char *type, const char *path, int argc, const char **argv)
{
	if (strcmp(type, wanted) != 0) {
		fprintf(stderr, "%s called for %s\n", path, type);
		return answer;
	}
	if (traced < TRACE_MAX)
		note(trace[traced++], path, argc, argv);
	*shared_count = traced;
	return answer;
}

/* libpam's module loads: each path a copy of the recorder, told its path. */
void *dlopen(const char *file, int mode)
{
	static void *(*real)(const char *, int);
	char copy[64], cmd[4200];
	void *handle;
	char *name;

	if (real == NULL)
		real = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	if (file == NULL || strstr(file, "pamstack-diff") != NULL)
		return real(file, mode);
	snprintf(copy, sizeof(copy), "%s/m%d.so", workdir, copies++);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", recorder, copy);
	if (system(cmd) != 0)
		return NULL;
	handle = real(copy, RTLD_NOW | RTLD_LOCAL);
	if (handle == NULL)
		return NULL;
	name = dlsym(handle, "recorder_path");
	snprintf(name, 4096, "%s", file);
	return handle;
}

static int conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	(void)n, (void)msg, (void)resp, (void)data;
	return PAM_CONV_ERR;
}

/* libpam's run of TYPE: the trace, and the result; -1 when pam_start fails, -2 when it crashes. */
static int libpam_run(const char *confdir, const char *service, const char *type)
{
	struct pam_conv c = { conv, NULL };
	pam_handle_t *pamh;
	int rc, status;
	pid_t pid;

	traced = 0;
	*shared_count = 0;
	wanted = type;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -2;
	if (pid == 0) {
		if (pam_start_confdir(service, "nobody", &c, confdir, &pamh) != PAM_SUCCESS)
			_exit(255);
		if (strcmp(type, "auth") == 0)
			rc = pam_authenticate(pamh, 0);
		else if (strcmp(type, "account") == 0)
			rc = pam_acct_mgmt(pamh, 0);
		else
			rc = pam_open_session(pamh, 0);
		pam_end(pamh, rc);
		_exit(rc);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -2;
	traced = *shared_count;
	return WEXITSTATUS(status) == 255 ? -1 : WEXITSTATUS(status);
}

/* Ours: the reader's lines. */
struct line {
	enum pamstack_kind kind;
	int level;
	int actions[PAMSTACK_RESULTS];
	char entry[ENTRY_MAX];
};
static struct line lines[1024];
static int nlines;

static int collect(void *ctx, const struct pamstack_line *l)
{
	const char *dir = ctx;
	char path[ENTRY_MAX];

	if (nlines == 1024)
		return 1;
	lines[nlines].kind = l->kind;
	lines[nlines].level = l->level;
	memcpy(lines[nlines].actions, l->actions, sizeof(l->actions));
	if (l->module[0] == '/')
		snprintf(path, sizeof(path), "%s", l->module);
	else
		snprintf(path, sizeof(path), "%s%s", dir, l->module);
	note(lines[nlines].entry, path, l->argc, l->argv);
	nlines++;
	return 0;
}

static long read_conf(void *ctx, const char *name, char *buf, size_t size)
{
	char path[4200];
	size_t len = 0;
	int fd;

	if (name[0] == '/')
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s", (const char *)ctx, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? PAMSTACK_READ_MISSING : -1;
	for (ssize_t n; len < size && (n = read(fd, buf + len, size - len)) > 0;)
		len += (size_t)n;
	close(fd);
	return (long)len;
}

/* libpam's dispatch over our lines (_pam_dispatch_aux, unfrozen): the trace, the result. */
static int model_run(char out[][ENTRY_MAX], int *n)
{
	enum { UNDEF, POSITIVE, NEGATIVE } impression = UNDEF, saved_i[PAMSTACK_DEPTH + 2];
	int status = PAM_PERM_DENIED, saved_s[PAMSTACK_DEPTH + 2], prev = 0;

	*n = 0;
	if (nlines == 0)
		return PAM_PERM_DENIED;
	for (int i = 0; i < nlines; i++) {
		int level = lines[i].level, retval, action;

		if (prev < level) {
			saved_i[level] = impression;
			saved_s[level] = status;
		}
		prev = level;
		if (lines[i].kind == PAMSTACK_SUBSTACK)
			continue;
		if (lines[i].kind == PAMSTACK_BROKEN) {
			retval = PAM_PERM_DENIED;
		} else {
			retval = answer;
			if (*n < TRACE_MAX)
				memcpy(out[(*n)++], lines[i].entry, ENTRY_MAX);
		}
		action = lines[i].actions[retval];
		if (action == PAMSTACK_RESET) {
			impression = saved_i[level];
			status = saved_s[level];
		} else if (action == PAMSTACK_OK || action == PAMSTACK_DONE) {
			if (impression == UNDEF ||
			    (impression == POSITIVE && status == PAM_SUCCESS)) {
				impression = POSITIVE;
				status = retval;
			}
			if (impression == POSITIVE && action == PAMSTACK_DONE)
				goto decided;
		} else if (action == PAMSTACK_BAD || action == PAMSTACK_DIE) {
			if (impression != NEGATIVE) {
				impression = NEGATIVE;
				status = retval == PAM_IGNORE ? PAM_PERM_DENIED : retval;
			}
			if (action == PAMSTACK_DIE)
				goto decided;
		} else if (action > 0) {
			while (i + 1 < nlines && lines[i + 1].level >= level && action > 0) {
				do
					i++;
				while (i + 1 < nlines && lines[i + 1].level > level);
				action--;
			}
			if (action != 0) {
				impression = NEGATIVE;
				status = PAM_PERM_DENIED;
			}
		}
		continue;
	decided:
		while (i + 1 < nlines && lines[i + 1].level >= level)
			i++;
	}
	if (status == PAM_SUCCESS && impression != POSITIVE)
		status = PAM_PERM_DENIED;
	return status;
}

static int passed, failed, unknown;

static void check(const char *confdir, const char *moddir, const char *service, const char *type)
{
	static const int answers[] = {
		PAM_SUCCESS,	      PAM_IGNORE,      PAM_AUTH_ERR,
		PAM_AUTHINFO_UNAVAIL, PAM_PERM_DENIED, PAM_NEW_AUTHTOK_REQD
	};
	static char ours[TRACE_MAX][ENTRY_MAX];
	struct pamstack_source source = { read_conf, (void *)confdir };
	struct pamstack_unknown why;
	enum pamstack_result read;

	nlines = 0;
	read = pamstack_read(&source, service, type, collect, (void *)moddir, &why);
	for (size_t a = 0; a < sizeof(answers) / sizeof(answers[0]); a++) {
		int theirs_rc, ours_rc, n, same;

		answer = answers[a];
		theirs_rc = libpam_run(confdir, service, type);
		if (read == PAMSTACK_UNKNOWN) {
			unknown++;
			printf("skip - %s %s: cannot tell (%s: %s)\n", service, type, why.file,
			       why.why);
			return;
		}
		if (read == PAMSTACK_NONE || read == PAMSTACK_REFUSED) {
			same = theirs_rc == -1;
			n = 0;
			ours_rc = -1;
		} else {
			ours_rc = model_run(ours, &n);
			same = theirs_rc == ours_rc && n == traced;
			for (int i = 0; same && i < n; i++)
				same = strcmp(ours[i], trace[i]) == 0;
		}
		if (same) {
			passed++;
			continue;
		}
		failed++;
		printf("FAIL - %s %s, every module %s: libpam %d, ours %d\n", service, type,
		       pam_strerror(NULL, answer), theirs_rc, ours_rc);
		for (int i = 0; i < traced; i++)
			printf("    libpam: %s\n", trace[i]);
		for (int i = 0; i < n; i++)
			printf("    ours:   %s\n", ours[i]);
	}
	printf("ok   - %s %s\n", service, type);
}

/* The keyring rule against libpam: a keyring module called in an auth run. */
static int present(void *ctx, const char *module)
{
	(void)ctx, (void)module;
	return 1;
}

static long read_keyring(void *ctx, const char *name, char *buf, size_t size)
{
	long n = read_conf(ctx, name, buf, size);

	return n == PAMSTACK_READ_MISSING ? KEYRING_READ_MISSING : n;
}

static void check_keyring(const char *confdir, const char *service)
{
	static const int answers[] = { PAM_SUCCESS, PAM_IGNORE, PAM_AUTH_ERR,
				       PAM_AUTHINFO_UNAVAIL };
	struct keyring_source source = { read_keyring, present, (void *)confdir };
	struct keyring_found found;
	enum keyring_scan scan = keyring_scan(&source, service, &found);
	int theirs = 0, crashed = 0;

	for (size_t a = 0; a < sizeof(answers) / sizeof(answers[0]); a++) {
		answer = answers[a];
		crashed |= libpam_run(confdir, service, "auth") == -2;
		for (int i = 0; i < traced; i++) {
			char *end = strchr(trace[i], ' ');

			if (end != NULL)
				*end = '\0';
			theirs |= keyring_module(trace[i]);
		}
	}
	/* A stack libpam crashes on runs no module: any answer keeps the keyring as it is. */
	if (theirs == (scan != KEYRING_NONE) || scan == KEYRING_UNKNOWN || crashed) {
		passed++;
		printf("ok   - %s keyring: libpam %s, keyring_scan %d\n", service,
		       crashed	? "crashes"
		       : theirs ? "unlocks"
				: "none",
		       scan);
	} else {
		failed++;
		printf(
		    "FAIL - %s keyring: libpam calls a keyring module: %s, keyring_scan says %d\n",
		    service, theirs ? "yes" : "no", scan);
	}
}

int main(int argc, char **argv)
{
	static const char *const types[] = { "auth", "account", "session" };
	int keyring = argc > 1 && strcmp(argv[1], "-k") == 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	argv += keyring;
	argc -= keyring;
	if (argc < 5) {
		fprintf(stderr,
			"usage: pamstack_diff [-k] RECORDER.so CONFDIR MODULE_DIR/ SERVICE...\n");
		return 2;
	}
	recorder = argv[1];
	if (mkdtemp(workdir) == NULL)
		return 2;
	trace = mmap(NULL, TRACE_MAX * ENTRY_MAX + sizeof(int), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (trace == MAP_FAILED)
		return 2;
	shared_count = (int *)(trace + TRACE_MAX);
	for (int i = 4; i < argc; i++) {
		if (keyring) {
			check_keyring(argv[2], argv[i]);
			continue;
		}
		for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++)
			check(argv[2], argv[3], argv[i], types[t]);
	}
	{
		char cmd[200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", workdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", workdir);
	}
	printf("%d passed, %d failed (%d cannot tell)\n", passed, failed, unknown);
	return failed != 0;
}
