/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Both directions of docs/PROTOCOL.md: the request the shim writes (an
 * encoder that refuses what is not a protocol line) and the helper's reply
 * (an incremental, strict parser).  Pure: no I/O, no allocation, no PAM
 * calls, so it can be tested byte by byte and fuzzed.
 */
#ifndef TOUCHAUTH_PROTOCOL_H
#define TOUCHAUTH_PROTOCOL_H

#include <stddef.h>

#include "contract.h" /* the limits: TA_LINE_MAX, TA_REQUEST_MAX, ... */

struct request {
	char buf[TA_REQUEST_MAX]; /* the lines, not NUL-terminated */
	size_t len;
	int nargs;
};

enum request_error { REQUEST_OK, REQUEST_BAD_USER, REQUEST_BAD_SERVICE };

/*
 * The header, user, service and fallback lines ("enter" when the shim reads
 * Enter from a terminal, "field" beside a polkit agent's field, otherwise "none").  A user or
 * service name with a control byte, or too long for a line, is refused: nothing usable is left.
 */
enum request_fallback {
	FALLBACK_NONE,	/* no key: the timeout or the wrong fingers */
	FALLBACK_ENTER, /* the terminal the shim owns: Enter or typing */
	FALLBACK_FIELD, /* a polkit agent's password field beside the prompt (agent.h) */
};

enum request_error request_begin(struct request *r, const char *user, const char *service,
				 enum request_fallback fallback);

/* One "arg" line: 0, or -1 (left out) for a control byte, a line too long, or one too many. */
int request_arg(struct request *r, const char *arg);

/*
 * The optional lines, after request_begin and before the first request_arg,
 * each at most once and in this order; 0, or -1 when it does not fit (the
 * request stays valid without it).
 *   columns: the width of the terminal the prompt is shown on
 *   messages one: the client shows only the latest message (clients.h)
 *   approve: what the touch approves (approval.h), fields without spaces
 *            but the last
 */
int request_columns(struct request *r, int columns);
int request_one_message(struct request *r);
int request_approve(struct request *r, const char *program, const char *kind, const char *user,
		    const char *text);
/*
 *   display: the request's X display (PAM_XDISPLAY), which names it on an
 *            overlapping prompt when it has no terminal; only TA_DISPLAY_CHARS
 */
int request_display(struct request *r, const char *display);

/*
 *   session: the logind session whose lock decides (docs/POLICY.md#a-locked-screen):
 *   the helper asks logind whether it is locked; only when ta_session_ok().
 */
int request_session(struct request *r, const char *session);

/* The "end" line: the request is complete. */
void request_end(struct request *r);

/*
 * The outcomes of docs/POLICY.md#outcomes.  Zero is a refusal: systemCancel
 * (the password), so a verdict or an attempt that starts zeroed, or a field a
 * path forgot to set, is never success; success is set only from a reply's
 * `result success` line (reply_feed).  They travel by name (PROTOCOL.md):
 * the numbers are the module's own.
 */
enum ta_outcome {
	TA_SYSTEM_CANCEL,
	TA_SUCCESS,
	TA_AUTHENTICATION_FAILED,
	TA_USER_FALLBACK,
	TA_USER_CANCEL,
	TA_BIOMETRY_LOCKOUT,
	TA_BIOMETRY_NOT_AVAILABLE,
	TA_BIOMETRY_NOT_ENROLLED,
	TA_PASSWORD_NOT_SET,
	TA_PASSWORD_REQUIRED,
	TA_OUTCOME_COUNT
};

/* Outcome name on the wire, and the PAM code the shim returns for it. */
struct ta_outcome_info {
	const char *name;
	int pam_code;
	const char *pam_code_name;
};

/* Indexed by enum ta_outcome; the one place the mapping is written. */
extern const struct ta_outcome_info ta_outcomes[TA_OUTCOME_COUNT];

enum reply_event {
	REPLY_NEED_MORE,     /* all input consumed, reply not finished */
	REPLY_INFO,	     /* a complete "info" line: show as PAM_TEXT_INFO */
	REPLY_ERROR_MSG,     /* a complete "error" line: show as PAM_ERROR_MSG */
	REPLY_DONE,	     /* "result" parsed; p->outcome is set */
	REPLY_PROTOCOL_ERROR /* p->error says why; sticky */
};

enum reply_state { RS_HEADER, RS_BODY, RS_DONE, RS_ERROR };

struct reply_parser {
	enum reply_state state;
	char line[TA_LINE_MAX]; /* the line being collected, NUL-terminated when complete */
	size_t len;
	unsigned int lines;
	enum ta_outcome outcome; /* valid in RS_DONE only */
	int strikes;		 /* the optional `strikes N` line: N, or -1 without one */
	int overlap;		 /* the optional `overlap PID` line: PID, or 0 without one */
	const char *error;	 /* static string, valid in RS_ERROR only */
};

void reply_init(struct reply_parser *p);

/*
 * Feed n bytes.  Consumes bytes up to and including the first line that
 * produces an event, stores how many were consumed in *used, and returns the
 * event; call again with the rest.  For REPLY_INFO and REPLY_ERROR_MSG, *text
 * points at the message (NUL-terminated, valid until the next call).
 * After REPLY_DONE, any further byte is a protocol error.
 */
enum reply_event reply_feed(struct reply_parser *p, const char *buf, size_t n, size_t *used,
			    const char **text);

/*
 * End of file.  Returns REPLY_DONE if the reply was complete, otherwise
 * REPLY_PROTOCOL_ERROR with p->error set.
 */
enum reply_event reply_finish(struct reply_parser *p);

/* The outcome whose wire name is exactly s, or -1. */
int outcome_from_name(const char *s);

#endif /* TOUCHAUTH_PROTOCOL_H */
