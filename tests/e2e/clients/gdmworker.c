/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gdmworker: GDM's two-stack login (gdm-password beside gdm-fingerprint) the way GDM 43
 * (Debian 12's gdm3) drives PAM, for a machine where GDM itself cannot run (no systemd).
 *
 * What GDM does, and this program does the same (GNOME/gdm 43.0):
 * - One worker process per conversation (gdm-session.c starts a gdm-session-worker for each
 *   service the greeter asks for), so both PAM stacks run at the same time, each in its own
 *   process with its own handle. The worker is the daemon's child with PR_SET_PDEATHSIG SIGTERM
 *   (gdm-session-worker-job.c), and it ends on SIGTERM at once: session-worker-main.c installs
 *   `signal(SIGTERM, on_sigterm_cb)`, whose handler is `_exit(EXIT_SUCCESS)`, even in the middle
 *   of pam_authenticate.
 * - Its PAM calls (gdm-session-worker.c): pam_start(service, username) (the user the greeter
 *   selected); PAM_RHOST only for a remote display (XDMCP: the client's host name; then
 *   PAM_DISALLOW_NULL_AUTHTOK too); PAM_TTY "/dev/tty1" (GDM_INITIAL_VT, "temporarily ... the
 *   login VT"); pam_authenticate; pam_acct_mgmt; pam_setcred(PAM_ESTABLISH_CRED). PAM_XDISPLAY
 *   and PAM_TTY = the display are set only later, when the session is opened
 *   (set_up_for_current_vt), so the authentication sees PAM_TTY=/dev/tty1 alone.
 * - When one conversation has verified the user, the daemon stops every other one
 *   (stop_all_other_conversations -> gdm_session_worker_job_stop: kill(pid, SIGTERM)).
 *
 * Usage: gdmworker [-I tty|rhost|xdisplay=VALUE]... USER SERVICE[=ANSWERS]...
 *   ANSWERS: a file (a FIFO) from which each prompt's answer is read, one line per prompt,
 *   opened anew for each (the greeter's entry: the test writes the password when the user
 *   "types" it). Without it a prompt is answered with an empty string.
 *   -I tty=... replaces "/dev/tty1"; -I rhost=... is the remote display's host; -I
 *   xdisplay=... sets PAM_XDISPLAY before authenticating (a client that sets it earlier).
 * Prints, line by line: "[SERVICE] info|error|prompt: MESSAGE" for every conversation message,
 * "[SERVICE] authenticate|account|setcred: pam_strerror" and "gdm: ..." lines for the daemon's
 * side (workers started, which conversation won, which were stopped and how they ended), each
 * with the milliseconds since the start. Exit status: 0 when a conversation verified the user,
 * 1 when none did, 2 for a usage error.
 */
#include <errno.h>
#include <poll.h>
#include <security/pam_appl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONVERSATIONS 4
#define MAX_ITEMS	  8

static struct timespec started;
static const char *service_name = "";
static int stdio_mode; /* -1: prompts answered from standard input */

static long elapsed_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - started.tv_sec) * 1000 + (now.tv_nsec - started.tv_nsec) / 1000000;
}

/* session-worker-main.c: signal (SIGTERM, on_sigterm_cb) -> _exit (EXIT_SUCCESS). */
static void on_sigterm(int sig)
{
	(void)sig;
	_exit(EXIT_SUCCESS);
}

static char *read_answer(const char *path)
{
	char line[512];
	FILE *f;

	if (path == NULL)
		return strdup("");
	f = fopen(path, "r"); /* a FIFO: waits until the "user" types */
	if (f == NULL)
		return NULL;
	if (fgets(line, sizeof(line), f) == NULL)
		line[0] = '\0';
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	return strdup(line);
}

static char *read_stdin_answer(void)
{
	char line[512];

	if (fgets(line, sizeof(line), stdin) == NULL)
		return NULL; /* the daemon went away: PAM_CONV_ERR */
	line[strcspn(line, "\n")] = '\0';
	return strdup(line);
}

static int conversation(int n, const struct pam_message **msg, struct pam_response **resp,
			void *data)
{
	struct pam_response *r = calloc((size_t)n, sizeof(*r));

	if (r == NULL)
		return PAM_BUF_ERR;
	for (int i = 0; i < n; i++) {
		const char *kind = "info";
		const char *text = msg[i]->msg != NULL ? msg[i]->msg : "";

		switch (msg[i]->msg_style) {
		case PAM_PROMPT_ECHO_OFF:
			kind = "prompt";
			break;
		case PAM_PROMPT_ECHO_ON:
			kind = stdio_mode ? "question" : "prompt";
			break;
		case PAM_ERROR_MSG:
			kind = "error";
			break;
		default:
			break;
		}
		printf("[%s] %s: %s (%ld ms)\n", service_name, kind, text, elapsed_ms());
		if (strcmp(kind, "prompt") == 0 || strcmp(kind, "question") == 0) {
			r[i].resp = stdio_mode ? read_stdin_answer() : read_answer(data);
			if (r[i].resp == NULL) {
				free(r);
				return PAM_CONV_ERR;
			}
		}
	}
	*resp = r;
	return PAM_SUCCESS;
}

struct item {
	int type;
	const char *value;
};

/*
 * Closed by a worker once its pam_start returned: the daemon starts the next worker only then.
 * pam_wrapper copies the service directory into /tmp/pam.X inside pam_start, and two copies
 * begun in the same instant race for one name: the loser ends with no service file ("no
 * modules loaded"), a failure of the test's harness, not of the module (seen in clients_gdm.sh).
 * GDM itself opens the two conversations one after the other.
 */
static int ready_fd = -1;

/* One gdm-session-worker: returns 0 when it verified the user. */
static int worker(const char *service, const char *user, const char *answers,
		  const struct item *items, int nitems)
{
	struct pam_conv conv = { conversation, (void *)answers };
	pam_handle_t *pamh = NULL;
	int flags = 0, rc;

	service_name = service;
	rc = pam_start(service, user, &conv, &pamh);
	if (ready_fd >= 0) {
		close(ready_fd);
		ready_fd = -1;
	}
	if (rc != PAM_SUCCESS) {
		printf("[%s] pam_start failed\n", service);
		return 1;
	}
	if (stdio_mode)
		printf("[%s] started\n", service);
	rc = pam_set_item(pamh, PAM_TTY, "/dev/tty1");
	for (int k = 0; k < nitems && rc == PAM_SUCCESS; k++) {
		rc = pam_set_item(pamh, items[k].type, items[k].value);
		if (items[k].type == PAM_RHOST)
			flags |= PAM_DISALLOW_NULL_AUTHTOK; /* password_is_required */
	}
	if (rc != PAM_SUCCESS) {
		printf("[%s] pam_set_item: %s\n", service, pam_strerror(pamh, rc));
		pam_end(pamh, rc);
		return 1;
	}
	rc = pam_authenticate(pamh, flags);
	printf("[%s] authenticate: %s (%ld ms)\n", service, pam_strerror(pamh, rc), elapsed_ms());
	if (rc == PAM_SUCCESS) {
		rc = pam_acct_mgmt(pamh, flags);
		printf("[%s] account: %s\n", service, pam_strerror(pamh, rc));
	}
	if (rc == PAM_SUCCESS) {
		rc = pam_setcred(pamh, PAM_ESTABLISH_CRED);
		printf("[%s] setcred: %s\n", service, pam_strerror(pamh, rc));
	}
	pam_end(pamh, rc);
	return rc == PAM_SUCCESS ? 0 : 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: gdmworker [-I tty|rhost|xdisplay=VALUE]... USER SERVICE[=ANSWERS]...\n"
			"       gdmworker -1 [-I ...]... USER SERVICE\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct item items[MAX_ITEMS];
	pid_t pids[MAX_CONVERSATIONS];
	int fds[MAX_CONVERSATIONS], done[MAX_CONVERSATIONS] = { 0 };
	char *services[MAX_CONVERSATIONS];
	int nitems = 0, n = 0, i = 1, winner = -1, left;

	clock_gettime(CLOCK_MONOTONIC, &started);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && strcmp(argv[1], "-1") == 0) {
		stdio_mode = 1;
		i = 2;
	}
	while (i + 1 < argc && strcmp(argv[i], "-I") == 0) {
		char *eq = strchr(argv[i + 1], '=');

		if (eq == NULL || nitems == MAX_ITEMS)
			return usage();
		*eq = '\0';
		items[nitems].type = strcmp(argv[i + 1], "tty") == 0	   ? PAM_TTY
				     : strcmp(argv[i + 1], "rhost") == 0   ? PAM_RHOST
				     : strcmp(argv[i + 1], "xdisplay") == 0 ? PAM_XDISPLAY
									   : -1;
		if (items[nitems].type < 0)
			return usage();
		items[nitems++].value = eq + 1;
		i += 2;
	}
	if (argc - i < 2 || argc - i - 1 > MAX_CONVERSATIONS)
		return usage();
	if (stdio_mode) {
		if (argc - i != 2)
			return usage();
		(void)prctl(PR_SET_PDEATHSIG, SIGTERM); /* gdm-session-worker-job.c */
		signal(SIGTERM, on_sigterm);
		return worker(argv[i + 1], argv[i], NULL, items, nitems) == 0 ? 0 : 1;
	}

	/* The daemon: one worker per conversation, started together. */
	for (int j = i + 1; j < argc; j++, n++) {
		int p[2], ready[2];
		char *eq = strchr(argv[j], '=');

		if (eq != NULL)
			*eq = '\0';
		services[n] = argv[j];
		if (pipe(p) != 0 || pipe(ready) != 0)
			return 2;
		pids[n] = fork();
		if (pids[n] < 0)
			return 2;
		if (pids[n] == 0) {
			char verdict;

			close(p[0]);
			close(ready[0]);
			ready_fd = ready[1];
			(void)prctl(PR_SET_PDEATHSIG, SIGTERM); /* gdm-session-worker-job.c */
			signal(SIGTERM, on_sigterm);
			verdict = worker(argv[j], argv[i], eq != NULL ? eq + 1 : NULL, items, nitems) == 0
				      ? 'V'
				      : 'F';
			(void)write(p[1], &verdict, 1);
			_exit(verdict == 'V' ? 0 : 1);
		}
		close(p[1]);
		close(ready[1]);
		{
			char c;

			while (read(ready[0], &c, 1) < 0 && errno == EINTR)
				;
		}
		close(ready[0]);
		fds[n] = p[0];
		printf("gdm: worker for %s started, pid %d\n", services[n], (int)pids[n]);
	}

	for (left = n; left > 0 && winner < 0;) {
		struct pollfd pfd[MAX_CONVERSATIONS];

		for (int k = 0; k < n; k++)
			pfd[k] = (struct pollfd){ .fd = done[k] ? -1 : fds[k], .events = POLLIN };
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 2;
		}
		for (int k = 0; k < n && winner < 0; k++) {
			char verdict = 'F';

			if (done[k] || pfd[k].revents == 0)
				continue;
			if (read(fds[k], &verdict, 1) != 1)
				verdict = 'F';
			done[k] = 1;
			left--;
			if (verdict == 'V') {
				winner = k;
				printf("gdm: %s verified the user (%ld ms)\n", services[k], elapsed_ms());
			} else {
				printf("gdm: %s did not verify the user (%ld ms)\n", services[k],
				       elapsed_ms());
			}
		}
	}
	/* stop_all_other_conversations: SIGTERM to every other worker still running. */
	for (int k = 0; k < n; k++) {
		int status = 0;

		if (winner >= 0 && !done[k]) {
			kill(pids[k], SIGTERM);
			printf("gdm: stopping %s (pid %d) with SIGTERM\n", services[k], (int)pids[k]);
		}
		while (waitpid(pids[k], &status, 0) < 0 && errno == EINTR)
			;
		if (winner >= 0 && !done[k])
			printf("gdm: %s stopped: %s %d (%ld ms)\n", services[k],
			       WIFSIGNALED(status) ? "signal" : "exit status",
			       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), elapsed_ms());
	}
	if (winner < 0) {
		printf("gdm: no conversation verified the user\n");
		return 1;
	}
	printf("gdm: logged in by %s\n", services[winner]);
	return 0;
}
