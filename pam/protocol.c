/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Both directions of docs/PROTOCOL.md.  The request's encoder writes only
 * lines the helper's strict decoder takes.  The reply's parser is strict and
 * incremental: anything unexpected is a protocol error, which the caller
 * turns into systemCancel: a parser that guesses is a parser that can be
 * talked into PAM_SUCCESS.
 */
#include "protocol.h"

#include <security/_pam_types.h>
#include <stdio.h>
#include <string.h>

#define PAM_CODE(code) code, #code

const struct ta_outcome_info ta_outcomes[TA_OUTCOME_COUNT] = {
	[TA_SUCCESS] = { "success", PAM_CODE(PAM_SUCCESS) },
	[TA_AUTHENTICATION_FAILED] = { "authenticationFailed", PAM_CODE(PAM_MAXTRIES) },
	/* Every other outcome falls through to the next module: the password. */
	[TA_USER_FALLBACK] = { "userFallback", PAM_CODE(PAM_AUTHINFO_UNAVAIL) },
	/*
	 * Ctrl-C: PAM_ABORT, which only the stack decides about.  With the
	 * recommended `abort=die` the application gets it and stops (sudo: "a
	 * password is required", nothing runs); under a plain `default=ignore` it
	 * falls through to the password like the rest (tests/e2e/NOTES.md).
	 */
	[TA_USER_CANCEL] = { "userCancel", PAM_CODE(PAM_ABORT) },
	[TA_SYSTEM_CANCEL] = { "systemCancel", PAM_CODE(PAM_AUTHINFO_UNAVAIL) },
	[TA_BIOMETRY_LOCKOUT] = { "biometryLockout", PAM_CODE(PAM_AUTHINFO_UNAVAIL) },
	[TA_BIOMETRY_NOT_AVAILABLE] = { "biometryNotAvailable", PAM_CODE(PAM_AUTHINFO_UNAVAIL) },
	[TA_BIOMETRY_NOT_ENROLLED] = { "biometryNotEnrolled", PAM_CODE(PAM_AUTHINFO_UNAVAIL) },
	[TA_PASSWORD_NOT_SET] = { "passwordNotSet", PAM_CODE(PAM_AUTHINFO_UNAVAIL) },
	[TA_PASSWORD_REQUIRED] = { "passwordRequired", PAM_CODE(PAM_AUTHINFO_UNAVAIL) },
};

static int has_control_byte(const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			return 1;
	}
	return 0;
}

/* Append "prefix value\n" if it is a valid protocol line. */
static int append_line(struct request *r, const char *prefix, const char *value)
{
	size_t plen = strlen(prefix), vlen = strlen(value);

	if (has_control_byte(value) || plen + vlen + 1 > TA_LINE_MAX ||
	    r->len + plen + vlen + 1 > TA_REQUEST_MAX)
		return -1;
	memcpy(r->buf + r->len, prefix, plen);
	memcpy(r->buf + r->len + plen, value, vlen);
	r->buf[r->len + plen + vlen] = '\n';
	r->len += plen + vlen + 1;
	return 0;
}

enum request_error request_begin(struct request *r, const char *user, const char *service,
				 enum request_fallback fallback)
{
	r->len = 0;
	r->nargs = 0;
	if (append_line(r, "touchauth-request 1", "") != 0 || append_line(r, "user ", user) != 0)
		return REQUEST_BAD_USER;
	if (append_line(r, "service ", service) != 0)
		return REQUEST_BAD_SERVICE;
	/* So the helper's hint names only a key we really take. */
	(void)append_line(r, "fallback ",
			  fallback == FALLBACK_ENTER   ? "enter"
			  : fallback == FALLBACK_FIELD ? "field"
						       : "none");
	return REQUEST_OK;
}

int request_arg(struct request *r, const char *arg)
{
	if (r->nargs == TA_REQUEST_ARGS_MAX || append_line(r, "arg ", arg) != 0)
		return -1;
	r->nargs++;
	return 0;
}

int request_columns(struct request *r, int columns)
{
	char value[16];

	if (columns < TA_COLUMNS_MIN || columns > TA_COLUMNS_MAX)
		return -1;
	snprintf(value, sizeof(value), "%d", columns);
	return append_line(r, "columns ", value);
}

int request_one_message(struct request *r)
{
	return append_line(r, "messages ", "one");
}

int request_approve(struct request *r, const char *program, const char *kind, const char *user,
		    const char *text)
{
	char value[TA_LINE_MAX];
	int n = snprintf(value, sizeof(value), "%s %s %s %s", program, kind,
			 user[0] != '\0' ? user : "-", text);

	if (n < 0 || (size_t)n >= sizeof(value) || strchr(program, ' ') != NULL ||
	    strchr(kind, ' ') != NULL || strchr(user, ' ') != NULL)
		return -1;
	return append_line(r, "approve ", value);
}

int request_display(struct request *r, const char *display)
{
	if (!ta_display_ok(display))
		return -1;
	return append_line(r, "display ", display);
}

int request_session(struct request *r, const char *session)
{
	if (!ta_session_ok(session))
		return -1;
	return append_line(r, "session ", session);
}

void request_end(struct request *r)
{
	(void)append_line(r, "end", "");
}

static const char header[] = "touchauth 1";
static const char info_prefix[] = "info ";
static const char error_prefix[] = "error ";
static const char result_prefix[] = "result ";
static const char strikes_prefix[] = "strikes ";
static const char overlap_prefix[] = "overlap ";

void reply_init(struct reply_parser *p)
{
	memset(p, 0, sizeof(*p));
	p->state = RS_HEADER;
	p->outcome = TA_SYSTEM_CANCEL;
	p->strikes = -1;
}

int outcome_from_name(const char *s)
{
	for (int i = 0; i < TA_OUTCOME_COUNT; i++) {
		if (strcmp(s, ta_outcomes[i].name) == 0)
			return i;
	}
	return -1;
}

static enum reply_event fail(struct reply_parser *p, const char *why)
{
	p->state = RS_ERROR;
	p->error = why;
	return REPLY_PROTOCOL_ERROR;
}

static int has_prefix(const char *s, const char *prefix, size_t plen)
{
	return strncmp(s, prefix, plen) == 0;
}

/* `strikes N`: for the audit line only, it never changes the outcome; 0 to 9999. */
static enum reply_event parse_strikes(struct reply_parser *p, const char *digits)
{
	size_t n = strlen(digits);
	int v = 0;

	if (p->strikes >= 0)
		return fail(p, "second strikes line");
	if (n < 1 || n > 4 || strspn(digits, "0123456789") != n)
		return fail(p, "bad strikes");
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (digits[i] - '0');
	p->strikes = v;
	return REPLY_NEED_MORE;
}

/* `overlap PID`: for the audit line only; a pid as the kernel writes one (1 to TA_PID_MAX). */
static enum reply_event parse_overlap(struct reply_parser *p, const char *digits)
{
	size_t n = strlen(digits);
	long v = 0;

	if (p->overlap > 0)
		return fail(p, "second overlap line");
	if (n < 1 || n > 7 || strspn(digits, "0123456789") != n || digits[0] == '0')
		return fail(p, "bad overlap pid");
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (digits[i] - '0');
	if (v > TA_PID_MAX)
		return fail(p, "bad overlap pid");
	p->overlap = (int)v;
	return REPLY_NEED_MORE;
}

/* A complete line is in p->line (without its '\n', NUL-terminated). */
static enum reply_event parse_line(struct reply_parser *p, const char **text)
{
	if (p->state == RS_HEADER) {
		if (strcmp(p->line, header) != 0)
			return fail(p, "missing header");
		p->state = RS_BODY;
		return REPLY_NEED_MORE;
	}

	if (has_prefix(p->line, info_prefix, sizeof(info_prefix) - 1) ||
	    has_prefix(p->line, error_prefix, sizeof(error_prefix) - 1)) {
		int is_info = p->line[0] == 'i';
		size_t skip = is_info ? sizeof(info_prefix) - 1 : sizeof(error_prefix) - 1;
		size_t tlen = p->len - skip;

		if (tlen == 0)
			return fail(p, "empty message");
		if (tlen > TA_TEXT_MAX)
			return fail(p, "message too long");
		*text = p->line + skip;
		return is_info ? REPLY_INFO : REPLY_ERROR_MSG;
	}

	if (has_prefix(p->line, strikes_prefix, sizeof(strikes_prefix) - 1))
		return parse_strikes(p, p->line + sizeof(strikes_prefix) - 1);

	if (has_prefix(p->line, overlap_prefix, sizeof(overlap_prefix) - 1))
		return parse_overlap(p, p->line + sizeof(overlap_prefix) - 1);

	if (has_prefix(p->line, result_prefix, sizeof(result_prefix) - 1)) {
		int o = outcome_from_name(p->line + sizeof(result_prefix) - 1);

		if (o < 0)
			return fail(p, "unknown outcome");
		p->outcome = (enum ta_outcome)o;
		p->state = RS_DONE;
		return REPLY_DONE;
	}

	return fail(p, "unknown line");
}

enum reply_event reply_feed(struct reply_parser *p, const char *buf, size_t n, size_t *used,
			    const char **text)
{
	size_t i;

	*used = 0;
	*text = NULL;
	if (p->state == RS_ERROR)
		return REPLY_PROTOCOL_ERROR;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (p->state == RS_DONE) {
			*used = i + 1;
			return fail(p, "data after result");
		}
		if (c == '\n') {
			enum reply_event ev;

			*used = i + 1;
			if (++p->lines > TA_REPLY_LINES_MAX)
				return fail(p, "too many lines");
			p->line[p->len] = '\0';
			ev = parse_line(p, text);
			p->len = 0;
			if (ev != REPLY_NEED_MORE)
				return ev;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			*used = i + 1;
			return fail(p, "control byte");
		}
		/* Room for the '\n' that must end the line: TA_LINE_MAX - 1 bytes of text. */
		if (p->len >= TA_LINE_MAX - 1) {
			*used = i + 1;
			return fail(p, "line too long");
		}
		p->line[p->len++] = (char)c;
	}
	*used = n;
	return p->state == RS_DONE ? REPLY_DONE : REPLY_NEED_MORE;
}

enum reply_event reply_finish(struct reply_parser *p)
{
	switch (p->state) {
	case RS_DONE:
		return REPLY_DONE;
	case RS_ERROR:
		return REPLY_PROTOCOL_ERROR;
	case RS_HEADER:
		return fail(p, p->len ? "incomplete line" : "missing header");
	case RS_BODY:
	default:
		return fail(p, p->len ? "incomplete line" : "no result");
	}
}
