/* SPDX-License-Identifier: Apache-2.0 */
/*
 * polkit's agent helper (polkit-agent-helper-1) as our host: its stdin and
 * stdout are a line protocol with the authentication agent (a pipe from the
 * agent, or the accepted socket of polkit 127+'s socket-activated service).
 * While the fingerprint prompt is up the module owns that line, as it owns a
 * terminal at sudo (docs/decisions/0034-the-agent-line-is-the-prompts.md):
 * it sends the one password request that makes a dialog show its field, arms
 * the finger meanwhile, and reads the dialog's answer itself.  Whichever the
 * person uses first decides.
 */
#ifndef TOUCHAUTH_AGENT_H
#define TOUCHAUTH_AGENT_H

#include <stddef.h>

#include <security/pam_modules.h>

#include "terminal.h"

enum agent_read {
	AGENT_MORE,	/* no whole line yet */
	AGENT_ANSWERED, /* a->answer holds the line, without its newline */
	AGENT_GONE,	/* end of file or an error: the agent went away */
};

struct agent {
	int in_fd;  /* the agent's answers: the host's stdin, or -1 when not ours */
	int out_fd; /* the host's stdout */
	int asked;  /* our request line was sent: the dialog's field is up */
	int done;   /* its answer was read, or the agent is gone */
	int gone;
	size_t len;
	char answer[TERMINAL_PASSWORD_MAX];
};

void agent_init(struct agent *a);

/*
 * The host is polkit-agent-helper-1 speaking to an agent: the service is
 * polkit-1, /proc/self/exe is one of the agent helper's fixed paths, and its
 * stdin and stdout are a pipe or a socket.  Nothing the caller sets decides it.
 */
int agent_host(const char *service);

/*
 * Sends `PAM_PROMPT_ECHO_OFF Password: `, the line polkit-agent-helper-1
 * writes for pam_unix's question, so the agent shows its password field.
 * 0, or -1 (logged) when the line could not be written whole.
 */
int agent_ask(pam_handle_t *pamh, struct agent *a);

/* Reads what is ready of the answer, never past its newline and never blocking. */
enum agent_read agent_read(struct agent *a);

/* Waits, with no deadline (as the password module's own question would), for the whole answer. */
enum agent_read agent_wait(struct agent *a);

/* Forgets the answer. */
void agent_clear(struct agent *a);

#endif /* TOUCHAUTH_AGENT_H */
