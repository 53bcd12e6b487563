/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The agent's line while the prompt is up (agent.h).  The request line is the
 * one polkit-agent-helper-1 itself writes for a password question
 * (polkitagenthelper-pam.c); the answer is read a byte at a time, so the
 * rest of the agent's input stays for the host's own reads.
 */
#include "agent.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>

#include "clients.h"

/* polkit-agent-helper-1 where distributions install it: no other program's stdout is the agent's.
 */
static const char *const agent_helpers[] = {
	"/usr/lib/polkit-1/polkit-agent-helper-1",     /* Debian, Ubuntu */
	"/usr/libexec/polkit-agent-helper-1",	       /* Fedora */
	"/usr/lib/polkit/polkit-agent-helper-1",       /* Arch */
	"/usr/libexec/polkit-1/polkit-agent-helper-1", /* openSUSE */
};

#define AGENT_REQUEST "PAM_PROMPT_ECHO_OFF Password: \n"

void agent_init(struct agent *a)
{
	memset(a, 0, sizeof(*a));
	a->in_fd = -1;
	a->out_fd = -1;
}

static int pipe_or_socket(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

int agent_host(const char *service)
{
	char exe[256];
	ssize_t n;

	if (!client_agent_helper(service))
		return 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	for (size_t i = 0; i < sizeof(agent_helpers) / sizeof(agent_helpers[0]); i++) {
		if (strcmp(exe, agent_helpers[i]) == 0)
			return pipe_or_socket(STDIN_FILENO) && pipe_or_socket(STDOUT_FILENO);
	}
	return 0;
}

int agent_ask(pam_handle_t *pamh, struct agent *a)
{
	const char *line = AGENT_REQUEST;
	size_t off = 0, len = strlen(line);

	a->in_fd = STDIN_FILENO;
	a->out_fd = STDOUT_FILENO;
	while (off < len) {
		ssize_t w = write(a->out_fd, line + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			pam_syslog(pamh, LOG_ERR, "cannot ask the polkit agent for its field: %m");
			a->in_fd = -1;
			return -1;
		}
		off += (size_t)w;
	}
	a->asked = 1;
	return 0;
}

/* One byte of the answer: 1 read, 0 none ready, -1 the agent is gone. */
static int read_byte(int fd, int ms, char *c)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r;
	ssize_t n;

	do {
		r = poll(&pfd, 1, ms);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -1;
	if (r == 0)
		return 0;
	do {
		n = read(fd, c, 1);
	} while (n < 0 && errno == EINTR);
	return n == 1 ? 1 : -1;
}

static enum agent_read read_line(struct agent *a, int first_ms)
{
	int ms = first_ms;

	if (a->done)
		return a->gone ? AGENT_GONE : AGENT_ANSWERED;
	for (;;) {
		char c;
		int r = read_byte(a->in_fd, ms, &c);

		ms = 0;
		if (r == 0)
			return AGENT_MORE;
		a->done = 1;
		if (r < 0) {
			a->gone = 1;
			return AGENT_GONE;
		}
		if (c == '\n') {
			a->answer[a->len] = '\0';
			return AGENT_ANSWERED;
		}
		a->done = 0;
		/* Longer than PAM takes: the rest is dropped, as polkit's helper cuts its fgets. */
		if (a->len < sizeof(a->answer) - 1)
			a->answer[a->len++] = c;
	}
}

enum agent_read agent_read(struct agent *a)
{
	if (!a->asked)
		return AGENT_MORE;
	return read_line(a, 0);
}

enum agent_read agent_wait(struct agent *a)
{
	enum agent_read r = AGENT_MORE;

	while (a->asked && r == AGENT_MORE)
		r = read_line(a, -1);
	return r;
}

void agent_clear(struct agent *a)
{
	explicit_bzero(a->answer, sizeof(a->answer));
	a->len = 0;
}
