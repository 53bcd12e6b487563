/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a touch approves (docs/POLICY.md#what-the-touch-approves): for a host that runs something
 * (clients.h, client_host), the command and the target user, read from the
 * host's own argv (the module runs inside it; never the environment),
 * escaped and capped for the helper's prompt line.
 */
#ifndef TOUCHAUTH_APPROVAL_H
#define TOUCHAUTH_APPROVAL_H

#include <stddef.h>

#include "clients.h"

#include "contract.h"

#define APPROVAL_USER_MAX    TA_APPROVAL_USER_MAX
#define APPROVAL_TEXT_MAX    TA_APPROVAL_TEXT_MAX
#define APPROVAL_CMDLINE_MAX 65536 /* bytes of /proc/self/cmdline read */

struct approval {
	const char *program; /* "sudo", "doas", "su" */
	/*
	 * command: run TEXT as USER; shell: a shell as USER; edit: edit the
	 * files TEXT as USER (sudoedit); user: become USER (su); line: an
	 * invocation the parser does not take apart (sudo -v, sudo -g ...):
	 * TEXT is the whole command line.
	 */
	const char *kind;
	char user[APPROVAL_USER_MAX + 1];
	char text[APPROVAL_TEXT_MAX + 1];
};

/*
 * The approval of a host of kind HOST invoked with argv[0..argc) (argv[i]
 * NUL-terminated; complete = 0 when the last one was cut short); target is
 * PAM_USER (su's target).  0 with *a filled, -1 when HOST names nothing.
 */
int approval_from_argv(enum client_host host, int argc, char *const argv[], int complete,
		       const char *target, struct approval *a);

/* The same from the host's own /proc/self/cmdline. */
int approval_read(enum client_host host, const char *target, struct approval *a);

/*
 * Append the escaped IN (len bytes) to OUT (capacity cap, NUL-terminated,
 * *used bytes so far): valid UTF-8 that draws nothing unexpected as is;
 * control bytes, C1 controls, bidirectional and line-separator characters
 * as \e \n \t \r \xNN \u{NNNN}; invalid UTF-8 byte by byte as \xNN; a
 * backslash doubled.  With quote, a word that is empty or has a space or a
 * quote is written in '...' as a shell would take it.  Stops before the cap,
 * leaving room for an ellipsis; returns 0, or -1 when something was left out.
 */
int approval_escape(char *out, size_t cap, size_t *used, const char *in, size_t len, int quote);

#endif /* TOUCHAUTH_APPROVAL_H */
