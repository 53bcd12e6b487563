/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run the helper (`touchauth pam-verify`) the way pam_unix runs unix_chkpwd,
 * speak docs/PROTOCOL.md with it, relay its messages, and reap it.
 */
#ifndef TOUCHAUTH_HELPER_H
#define TOUCHAUTH_HELPER_H

#include <security/pam_modules.h>

#include "agent.h"
#include "approval.h"
#include "options.h"
#include "protocol.h"
#include "terminal.h"

/* Which helper command to run: the argv is fixed per mode. */
enum helper_mode {
	HELPER_VERIFY,	/* `touchauth pam-verify`: the fingerprint prompt */
	HELPER_ACCOUNT, /* `touchauth pam-account`: the password succeeded; clear the lockout */
};

/* One run of the helper. */
struct helper_call {
	enum helper_mode mode;
	const struct config_values *opts;
	const char *user;
	const char *service;
	int argc; /* the module's arguments, passed on as "arg" lines */
	const char **argv;
	struct terminal *term; /* the terminal the shim owns (terminal_take done), or NULL */
	int columns;	       /* its width for the prompt's lines, or 0 */
	int one_message;       /* the client shows only the latest message (clients.h) */
	const struct approval *approval; /* what the touch approves, or NULL */
	const char *display;		 /* the request's X display (PAM_XDISPLAY), or NULL */
	struct helper_seen *seen;	 /* when not NULL: filled in for the audit line */
	struct agent *agent; /* the polkit agent's line the shim owns (agent_ask done), or NULL */
	const char *session; /* the logind session whose lock decides (presence.h), or NULL */
};

/* For the audit line: the helper's pid (0: none started) and the reply's `overlap` pid (0: none).
 */
struct helper_seen {
	int pid;
	int overlap;
};

/*
 * call->term, when not NULL: its keys
 * end the prompt: the helper is killed and reaped, *outcome is userFallback
 * (Enter, or the first typed byte: term->typing tells) or userCancel, and the
 * return is PAM_SUCCESS.  The caller restores the terminal.  call->agent, when
 * not NULL: its whole answer line ends the prompt the same way (userFallback;
 * the agent gone: systemCancel), the answer left in call->agent.
 *
 * Always sets *outcome.  Returns PAM_SUCCESS when *outcome comes from a
 * well-formed reply and exit status 0; otherwise a PAM error code, the reason
 * logged, and *outcome is TA_SYSTEM_CANCEL.  *strikes (when not NULL) is the
 * reply's `strikes` line, for the audit line, or -1; call->seen's overlap
 * likewise comes only from a reply that is believed.
 */
int helper_run(pam_handle_t *pamh, const struct helper_call *call, enum ta_outcome *outcome,
	       int *strikes);

#endif /* TOUCHAUTH_HELPER_H */
