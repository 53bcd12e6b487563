/* SPDX-License-Identifier: Apache-2.0 */
/*
 * agent.c: the polkit agent's line while the prompt is up.  Only polkit's
 * own helper program is a host whose stdout is the agent's (this test binary
 * is not, even for the polkit-1 service); the request line is exactly the
 * one polkit-agent-helper-1 writes for a password question; the answer is
 * read up to its newline and never past it, in pieces, and the agent's end is
 * told from an answer.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

static int passed, failed;

static void check(int ok, const char *what)
{
	if (ok) {
		passed++;
		printf("ok   - %s\n", what);
	} else {
		failed++;
		printf("FAIL - %s\n", what);
	}
}

/* An agent whose line is a pipe: the test writes the answers into *to_module. */
static void pipe_agent(struct agent *a, int *to_module)
{
	int fds[2];

	agent_init(a);
	if (pipe(fds) != 0) {
		perror("pipe");
		return;
	}
	a->in_fd = fds[0];
	a->asked = 1;
	*to_module = fds[1];
}

static void check_host(void)
{
	check(!agent_host("polkit-1"),
	      "polkit-1 in a program that is not polkit's helper: not ours");
	check(!agent_host("sudo") && !agent_host("polkit") && !agent_host("Polkit-1"),
	      "other services: not ours");
}

static void check_ask(void)
{
	struct agent a;
	int fds[2], saved, sent;
	char line[64] = "";
	ssize_t n;

	agent_init(&a);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved < 0 || pipe(fds) != 0 || dup2(fds[1], STDOUT_FILENO) < 0) {
		check(0, "a pipe as stdout");
		return;
	}
	sent = agent_ask(NULL, &a) == 0 && a.asked && a.in_fd == STDIN_FILENO;
	dup2(saved, STDOUT_FILENO);
	close(saved);
	check(sent, "the request is sent");
	n = read(fds[0], line, sizeof(line) - 1);
	line[n > 0 ? n : 0] = '\0';
	check(strcmp(line, "PAM_PROMPT_ECHO_OFF Password: \n") == 0,
	      "the request is polkit's own line for a password question");
}

static void check_answers(void)
{
	struct agent a;
	int w = -1;
	char rest[16] = "";

	pipe_agent(&a, &w);
	check(agent_read(&a) == AGENT_MORE, "nothing written: no answer yet");
	check(write(w, "sec", 3) == 3 && agent_read(&a) == AGENT_MORE,
	      "half a line: no answer yet");
	check(write(w, "ret\nnext\n", 9) == 9 && agent_read(&a) == AGENT_ANSWERED &&
		  strcmp(a.answer, "secret") == 0,
	      "the whole line: the answer, without its newline");
	check(read(a.in_fd, rest, 5) == 5 && memcmp(rest, "next\n", 5) == 0,
	      "what follows the answer stays for the host");
	check(agent_read(&a) == AGENT_ANSWERED, "read again: the same answer");
	agent_clear(&a);
	check(a.len == 0 && a.answer[0] == '\0', "cleared");
	close(w);
	close(a.in_fd);

	pipe_agent(&a, &w);
	check(write(w, "\n", 1) == 1 && agent_wait(&a) == AGENT_ANSWERED && a.len == 0,
	      "an empty answer (OK with nothing typed)");
	close(w);
	close(a.in_fd);

	pipe_agent(&a, &w);
	check(write(w, "par", 3) == 3 && close(w) == 0 && agent_wait(&a) == AGENT_GONE,
	      "the agent gone before its newline: gone, never an answer");
	close(a.in_fd);

	agent_init(&a);
	check(agent_read(&a) == AGENT_MORE && agent_wait(&a) == AGENT_MORE,
	      "nothing asked: nothing read");
}

int main(void)
{
	check_host();
	check_answers();
	check_ask();
	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
