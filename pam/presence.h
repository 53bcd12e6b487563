/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whose touch is it?  The one owner of the rules that decide whether a
 * person at this machine can see and answer the prompt
 * (docs/POLICY.md#presence).  Every rule can only refuse; nothing from the caller's
 * environment can turn the prompt on.  Decided before anything is spawned.
 */
#ifndef TOUCHAUTH_PRESENCE_H
#define TOUCHAUTH_PRESENCE_H

#include <sys/types.h>

#include <security/pam_modules.h>

#include "config.h"
#include "contract.h"
#include "logind.h"
#include "terminal.h"

struct presence {
	/* NULL: a person here can answer; otherwise why not (the debug log). */
	const char *refusal;
	/* The terminal found; TERMINAL_OWNED: its keys are the prompt's. */
	enum terminal_use use;
	/*
	 * The prompt owns polkit's agent line (agent.h): a dialog with its password field.  Not
	 * for a socket-activated helper's text agent (a peer with a terminal): pkttyagent blocks
	 * reading its terminal once asked, so the finger comes first there.
	 */
	int agent_line;
	/*
	 * The logind session whose lock decides (POLICY.md#a-locked-screen): the
	 * caller's own, else the calling user's display session; "" where logind
	 * names none.  The helper asks logind for its LockedHint.
	 */
	char session[TA_SESSION_MAX + 1];
};

/*
 * Whose session and display the rules ask about: this process and its real uid, except in
 * polkit's socket-activated helper (polkit 127+: `polkit-agent-helper-1 --socket-activated`,
 * started by systemd per connection as root, its stdin and stdout the accepted socket), whose
 * process tree says nothing of the person: there the agent, the socket's peer (SO_PEERCRED).
 */
struct presence_subject {
	pid_t pid; /* for sd_pid_get_session: 0 is this process */
	uid_t uid; /* whose display user_at_display asks about */
	int peer;  /* 1: the socket's peer, the agent (it shows the conversation itself) */
};

/*
 * Fills SUBJECT: this process and getuid(), or, when AGENT (the host is polkit-agent-helper-1
 * for the polkit-1 service: agent.h, agent_host), its real uid root, its parent PID 1 and its
 * stdin a socket, that socket's peer. 0, or -1 when that peer cannot be read (the
 * password).
 */
int presence_subject(int agent, struct presence_subject *subject);

/*
 * The rules, in the order applied (cheapest and most common first):
 *   1. the user's switch (`touchauth disable`);
 *   2. not a network login (PAM_RHOST, the sshd service, SSH_* variables);
 *   3. where logind runs, the caller's session is local, active, on a seat (the caller:
 *      presence_subject's; for polkit's socket-activated helper, the agent, which then
 *      counts as showing the conversation);
 *   4. someone must answer: a terminal a person types into, or a screen that
 *      shows the conversation (sudo needs the terminal: clients.c); for a
 *      locker that reads the password first (clients.h) the answer to the
 *      module's own question (pam_touchauth.c), and no terminal is opened;
 *   5. without logind, a terminal counts only with terminal_without_logind.
 * AGENT: the host is polkit's agent helper (agent.h).  Its terminal, if it is
 * in that terminal's foreground, is the text agent's; without one, the
 * agent's dialog is on the screen of a user who sits at a local, active
 * graphical session (the session rule's user_at_display), where GNOME and KDE
 * run their agents outside the session.
 * The locked screen is the helper's too (it asks logind over the bus):
 * presence names the session in p.session.
 * The lid is the helper's (Readers.swift): only it knows which reader is
 * inside.  TERM is opened by rule 5 and left open when nothing refuses; on a
 * refusal it is closed again.
 */
struct presence presence_decide(pam_handle_t *pamh, const struct config_values *opts,
				const char *service, uid_t uid, int agent, struct terminal *term);

#endif /* TOUCHAUTH_PRESENCE_H */
